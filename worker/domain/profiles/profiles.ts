/**
 * A user's profile: sent (or corrected and sent again) by the user, verified or rejected by an
 * operator. Each change is one statement or one batch; operator decisions carry their audit
 * entry in the same batch.
 */
import { and, asc, count, desc, eq, inArray, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { audit_log, profiles, uploads, users } from "../../db/schema";
import { checkProfile, type FieldFailure, type ProfileInput } from "./rules";

export type Profile = typeof profiles.$inferSelect;
export type ProfileStatus = Profile["status"] | "incomplete";

/**
 * `changed`: the verified addresses this submission replaced (decision 138). The new ones are
 * unverified; the caller tells the old verified email, so a takeover is seen by the owner.
 */
export type SubmitResult = { status: "ok"; profile: Profile; changed: { email?: string; phone?: string }; notify: string | null } | { status: FieldFailure | "profile_verified" };

/** Both images must be this user's own uploads: a profile never points at someone else's file. */
async function ownsUploads(db: Db, user_id: number, ids: string[]): Promise<Set<string>> {
  const rows = await db.select({ id: uploads.id }).from(uploads).where(and(eq(uploads.user_id, user_id), inArray(uploads.id, ids)));
  return new Set(rows.map((r) => r.id));
}

/**
 * Sends the profile for review: first time, a correction while under review, or again after a
 * rejection (the reason is cleared). A verified profile is read-only; the upsert's condition
 * enforces that even against a verification landing between the read and the write.
 */
export async function submitProfile(db: Db, user_id: number, input: ProfileInput, now_ms: number): Promise<SubmitResult> {
  const checked = checkProfile(input);
  if (checked.status !== "ok") return checked;
  const f = checked.value;
  const owned = await ownsUploads(db, user_id, [f.id_photo_id, f.signature_id]);
  if (!owned.has(f.id_photo_id)) return { status: "id_photo_unknown" };
  if (!owned.has(f.signature_id)) return { status: "signature_unknown" };
  const values = { ...f, status: "submitted" as const, reject_reason: "", submitted_at_ms: now_ms, decided_at_ms: null, decided_by: null };
  const before = await readProfile(db, user_id);
  // An address that stays keeps its verification; a new one is unverified until its code (decision 138).
  const keepIfSame = (column: typeof profiles.email | typeof profiles.phone, stamp: typeof profiles.email_verified_at_ms | typeof profiles.phone_verified_at_ms, value: string) =>
    sql`CASE WHEN ${column} = ${value} THEN ${stamp} ELSE NULL END`;
  const [row] = await db
    .insert(profiles)
    .values({ user_id, ...values })
    .onConflictDoUpdate({
      target: profiles.user_id,
      set: {
        ...values,
        email_verified_at_ms: keepIfSame(profiles.email, profiles.email_verified_at_ms, f.email),
        phone_verified_at_ms: keepIfSame(profiles.phone, profiles.phone_verified_at_ms, f.phone),
      },
      setWhere: ne(profiles.status, "verified"),
    })
    .returning();
  if (!row) return { status: "profile_verified" };
  const changed: { email?: string; phone?: string } = {};
  if (before?.email_verified_at_ms != null && before.email !== row.email) changed.email = before.email;
  if (before?.phone_verified_at_ms != null && before.phone !== row.phone) changed.phone = before.phone;
  // The old verified email hears of any change (it is the address recovery would have used).
  const notify = before?.email_verified_at_ms != null && (changed.email || changed.phone) ? before.email : null;
  return { status: "ok", profile: row, changed, notify };
}

export async function readProfile(db: Db, user_id: number): Promise<Profile | undefined> {
  return db.query.profiles.findFirst({ where: eq(profiles.user_id, user_id) });
}

export type DecideResult = { status: "ok"; profile: Profile } | { status: "not_found" | "profile_not_submitted" | "profile_changed" };

/**
 * `seen` is the `submitted_at_ms` of the version the operator looked at: a user may correct a
 * profile under review, and a decision must never apply to details the operator did not see.
 */
export type Decision = { to: "verified" | "rejected"; reason: string; seen?: number };

/** A batch broken by the guard below: the profile was not waiting for review. */
function isGuardFailure(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (String((e as { message?: unknown }).message ?? "").includes("NOT NULL constraint failed: audit_log.operator_id")) return true;
  }
  return false;
}

/**
 * One batch: the audit entry first, whose operator id is found only while the profile is
 * `submitted` (otherwise NULL, and the NOT NULL constraint rolls the batch back), then the
 * update. So two operators deciding at once give one decision and one audit entry.
 */
async function decide(db: Db, operator_id: number, user_id: number, d: Decision, now_ms: number): Promise<DecideResult> {
  const before = await readProfile(db, user_id);
  if (!before) return { status: "not_found" };
  if (before.status === "submitted" && d.seen !== undefined && before.submitted_at_ms !== d.seen) return { status: "profile_changed" };
  const version = d.seen === undefined ? sql`` : sql` AND submitted_at_ms = ${d.seen}`;
  const guardedOperator = sql`(SELECT ${operator_id} FROM profiles WHERE user_id = ${user_id} AND status = 'submitted'${version})` as unknown as number;
  const audit = db.insert(audit_log).values({
    operator_id: guardedOperator,
    action: d.to === "verified" ? "profile.verify" : "profile.reject",
    target: `user:${user_id}`,
    reason: d.reason,
    data_json: JSON.stringify({ user_id, name: before.name, id_photo_id: before.id_photo_id, signature_id: before.signature_id }),
    created_at_ms: now_ms,
  });
  const update = db
    .update(profiles)
    .set({ status: d.to, reject_reason: d.reason, decided_at_ms: now_ms, decided_by: operator_id })
    .where(and(eq(profiles.user_id, user_id), eq(profiles.status, "submitted")));
  try {
    await db.batch([audit, update]);
  } catch (err) {
    if (!isGuardFailure(err)) throw err;
    // Lost a race: to another operator's decision, or to the user's correction.
    const now = await readProfile(db, user_id);
    return { status: now?.status === "submitted" ? "profile_changed" : "profile_not_submitted" };
  }
  return { status: "ok", profile: (await readProfile(db, user_id))! };
}

export function verifyProfile(db: Db, operator_id: number, user_id: number, seen: number | undefined, now_ms: number) {
  return decide(db, operator_id, user_id, { to: "verified", reason: "", seen }, now_ms);
}

export function rejectProfile(db: Db, operator_id: number, user_id: number, reason: string, seen: number | undefined, now_ms: number) {
  return decide(db, operator_id, user_id, { to: "rejected", reason, seen }, now_ms);
}

/** The review queue: waiting profiles oldest first, decided ones newest first; with the account. */
export async function listProfiles(db: Db, status: Profile["status"] | "all", page: { page_no: number; row: number }) {
  const where = status === "all" ? undefined : eq(profiles.status, status);
  const items = await db
    .select({ profile: profiles, account: users.account })
    .from(profiles)
    .leftJoin(users, eq(users.id, profiles.user_id))
    .where(where)
    .orderBy(status === "submitted" ? asc(profiles.submitted_at_ms) : desc(profiles.submitted_at_ms))
    .limit(page.row)
    .offset((page.page_no - 1) * page.row);
  const [{ total }] = await db.select({ total: count() }).from(profiles).where(where);
  return { items: items.map((r) => ({ ...r.profile, account: r.account ?? "" })), total };
}
