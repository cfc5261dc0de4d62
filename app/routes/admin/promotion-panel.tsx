import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { adminApi } from "../../lib/admin.server";

/**
 * A resource route (no page): what <PromotionPanel> loads and posts to (and, with `bookings=1`, a promotion's bookings), so the panel works
 * wherever it is rendered (beside a chat conversation, on /admin/promotions). The API checks
 * the operator session; a 401 comes back as an envelope the panel shows.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const promotion_id = url.searchParams.get("promotion_id") ?? "";
  // `bookings=1`: the promotion's bookings, for the list the console page opens panels from.
  if (url.searchParams.get("bookings") === "1") return adminApi(context, request, `/api/admin/promotions/${/^\d{1,15}$/.test(promotion_id) ? promotion_id : "0"}/bookings`);
  return adminApi(context, request, "/api/admin/promotion_panel", { user_id: url.searchParams.get("user_id") ?? "", promotion_id });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { intent, booking_id, ...form } = Object.fromEntries(await request.formData()) as Record<string, string>;
  const booking = /^\d{1,15}$/.test(booking_id ?? "") ? booking_id : "0";
  if (intent === "grant") return adminApi(context, request, "/api/admin/promotions/grant", { promotion_id: form.promotion_id, user_id: form.user_id, deposit_id: form.deposit_id });
  if (intent === "confirm") return adminApi(context, request, `/api/admin/promotions/bookings/${booking}/confirm`);
  if (intent === "decline") return adminApi(context, request, `/api/admin/promotions/bookings/${booking}/decline`, { reason: form.reason });
  return { status: 400, code: 0 as const, msg: "", data: null };
}
