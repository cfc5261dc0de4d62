import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { profiles } from "../../db/schema";

/**
 * May this user buy into the loan service? Only with a profile that was submitted (under
 * review) or verified; none yet, or a rejected one, blocks new purchases until it is sent.
 */
export type LoanGate = { status: "ok" } | { status: "profile_incomplete" | "profile_rejected" };

export async function loanGate(db: Db, user_id: number): Promise<LoanGate> {
  const row = await db.query.profiles.findFirst({ where: eq(profiles.user_id, user_id), columns: { status: true } });
  if (!row) return { status: "profile_incomplete" };
  return row.status === "rejected" ? { status: "profile_rejected" } : { status: "ok" };
}
