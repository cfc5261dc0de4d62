import type { AppLoadContext } from "@remix-run/cloudflare";
import type { ProposalOut } from "../components/admin/terms-proposals";
import { adminApi } from "./admin.server";
import { decideInQueue } from "./admin-queue.server";

/** The pending proposals of one kind (markets or withdrawal channels). */
export async function loadProposals(context: AppLoadContext, request: Request, kind: "market" | "withdrawal"): Promise<ProposalOut[]> {
  const r = await adminApi<ProposalOut[]>(context, request, "/api/admin/terms/proposals", { kind });
  return r.code === 1 ? r.data : [];
}

/** A page action's share for proposals: intents "open" and "decline" go to the terms API; null for anything else. */
export async function decideProposal(context: AppLoadContext, request: Request) {
  const intent = String((await request.clone().formData()).get("intent") ?? "");
  if (intent !== "open" && intent !== "decline") return null;
  return decideInQueue(context, request, "/api/admin/terms/proposals", { open: null, decline: "reason" });
}
