import type { AppLoadContext } from "@remix-run/cloudflare";
import { adminApi, adminApiOrLogin } from "./admin.server";
import { pageParam, QUEUE_ROWS, statusParam } from "./admin-console";

/** One page of a review queue (deposits, withdrawals): `?status=` and `?page=` from the URL. */
export async function loadQueue<Item, S extends string>(context: AppLoadContext, request: Request, path: string, statuses: readonly S[]) {
  const url = new URL(request.url);
  const status = statusParam(url, statuses);
  const page_no = pageParam(url);
  const res = await adminApiOrLogin<{ items: Item[]; total: number }>(context, request, path, { status, page_no, row: QUEUE_ROWS });
  return { items: res.code === 1 ? res.data.items : [], total: res.code === 1 ? res.data.total : 0, status, page_no, error: res.code === 1 ? "" : res.msg };
}

/**
 * A queue row's decision: `intent` names the endpoint `<path>/<id>/<intent>`, and `intents`
 * says which form fields (none, one, or several) it carries. Anything else is refused
 * without a call.
 */
export async function decideInQueue(context: AppLoadContext, request: Request, path: string, intents: Record<string, string | string[] | null>) {
  const form = await request.formData();
  const id = String(form.get("id") ?? "");
  const intent = String(form.get("intent") ?? "");
  if (!/^\d{1,15}$/.test(id) || !Object.hasOwn(intents, intent)) return { status: 400, code: 0 as const, msg: "", data: null };
  const fields = [intents[intent] ?? []].flat();
  const body = Object.fromEntries(fields.map((f) => [f, String(form.get(f) ?? "")]));
  return adminApi(context, request, `${path}/${id}/${intent}`, fields.length > 0 ? body : undefined);
}
