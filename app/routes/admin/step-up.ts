import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { adminApi } from "../../lib/admin.server";

/**
 * A resource route (no page) behind the console's code prompt (app/components/admin/step-up.tsx):
 * confirms the operator's authenticator code again, opening the money routes for five minutes.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  return adminApi(context, request, "/api/admin/step_up", { code: String(form.get("code") ?? "") });
}
