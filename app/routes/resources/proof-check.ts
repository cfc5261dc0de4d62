import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { api } from "../../lib/api.server";

/**
 * A resource route (no page): `/pages/proof/check?order_id=` (or `transfer_id=`) and `&first=`
 * (the tree size this browser saw last). It fetches, as the signed-in user, what the browser
 * needs to verify the record itself: the inclusion proof with its checkpoint (and its witnesses'
 * cosignatures), the log's key, its handover checkpoints and witnesses, and the consistency
 * proof from `first`. No verdict
 * comes from here.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const num = (k: string) => (/^\d{1,15}$/.test(url.searchParams.get(k) ?? "") ? Number(url.searchParams.get(k)) : undefined);
  const [order_id, transfer_id, first] = [num("order_id"), num("transfer_id"), num("first")];
  const inclusion = await api(context, request, "/api/proof/inclusion", order_id !== undefined ? { order_id } : { transfer_id });
  if (inclusion.code !== 1) return Response.json(inclusion, { status: inclusion.status === 401 ? 401 : 200 });
  const key = await api(context, request, "/api/proof/key");
  const second = inclusion.data.tree_size as number;
  const consistency = first !== undefined && first > 0 && first <= second ? await api(context, request, "/api/proof/consistency", { first, second }) : null;
  const witnesses = { witnesses: (key.data?.witnesses ?? []) as string[], quorum: Number(key.data?.quorum ?? 0) };
  return Response.json({ code: 1, msg: inclusion.msg, data: { inclusion: inclusion.data, verifier_key: key.data?.verifier_key ?? "", handovers: key.data?.handovers ?? [], witnesses, consistency: consistency?.code === 1 ? consistency.data.proof : null } });
}
