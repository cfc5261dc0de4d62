/**
 * Erasing a user's personal data (decision 133, docs/ops/retention.md). Removed: the profile
 * (name, phone, e-mail, ID photo, signature), every file the user uploaded and every picture of
 * their customer-service conversations, the conversations and their texts, bank cards, bound
 * addresses, sealed payout details of closed withdrawals, sessions, sign-in history, devices,
 * passkeys, two-factor keys, push subscriptions, notification settings and notifications; the
 * account name and password are replaced so nobody can sign in as them again.
 *
 * Kept, because the books and the public log must stay whole and verifiable (and record-keeping
 * law asks for them): the user row's id, the ledger (accounts and transfers), orders and their
 * ticks, deposits, withdrawals, adjustments, earn and promotion records, transitions, the audit
 * log, and the log's leaves (which name the user by pseudonym only, decision 109).
 *
 * Refused while the user has money or anything open (an erased user could not be paid out),
 * unless the caller says so: `allow_open`.
 */
import { sql, type SQL } from "drizzle-orm";
import { d1Statements, type Db } from "../../db/client";
import { auditInsert } from "../audit/log";

/** What an erasure removes or rewrites, table by table, and the files it deletes. */
export type ErasurePlan = {
  user_id: number;
  account: string;
  rows: Record<string, number>;
  files: string[];
  balance_micro: number;
  open: Record<string, number>;
};

export type EraseResult =
  | { status: "ok"; plan: ErasurePlan; files_deleted: number }
  | { status: "user_unknown" }
  | { status: "has_money" | "has_open_items"; plan: ErasurePlan };

/** The account name an erased user keeps (valid for the account rules, unique by the id). */
export const erasedAccount = (user_id: number) => `erased_${user_id}`;
/** Not a password hash: no password ever verifies against it. */
export const ERASED_PASSWORD = "!erased";

/** The user's conversations, and guest conversations merged into them. */
const conversationsOf = (user_id: number) =>
  sql`SELECT id FROM service_conversations WHERE user_id = ${user_id} OR merged_into_id IN (SELECT id FROM service_conversations WHERE user_id = ${user_id})`;

/** Each personal table: the rows of this user it touches, and what it does to them. */
function personalRows(user_id: number): { table: string; where: SQL; action: "delete" | SQL }[] {
  const convs = conversationsOf(user_id);
  return [
    { table: "profiles", where: sql`user_id = ${user_id}`, action: "delete" },
    // Their files, and the operators' pictures in their conversations (uploaded as user 0).
    { table: "uploads", where: sql`user_id = ${user_id} OR id IN (SELECT upload_id FROM service_uploads WHERE conversation_id IN (${convs}))`, action: "delete" },
    { table: "service_messages", where: sql`conversation_id IN (${convs})`, action: "delete" },
    { table: "service_contexts", where: sql`conversation_id IN (${convs})`, action: "delete" },
    { table: "service_uploads", where: sql`conversation_id IN (${convs})`, action: "delete" },
    { table: "bank_cards", where: sql`user_id = ${user_id}`, action: "delete" },
    { table: "wallets", where: sql`user_id = ${user_id}`, action: "delete" },
    // A closed withdrawal keeps its masked destination and amounts; the sealed bank details go.
    { table: "withdrawals", where: sql`user_id = ${user_id} AND status <> 'review' AND payout_details <> ''`, action: sql`payout_details = ''` },
    { table: "sessions", where: sql`kind = 'user' AND subject_id = ${user_id}`, action: "delete" },
    { table: "login_attempts", where: sql`user_id = ${user_id}`, action: "delete" },
    { table: "known_devices", where: sql`user_id = ${user_id}`, action: "delete" },
    { table: "passkeys", where: sql`user_id = ${user_id}`, action: "delete" },
    { table: "webauthn_challenges", where: sql`user_id = ${user_id}`, action: "delete" },
    { table: "two_factor", where: sql`user_id = ${user_id}`, action: "delete" },
    { table: "two_factor_recovery_codes", where: sql`user_id = ${user_id}`, action: "delete" },
    { table: "push_subscriptions", where: sql`user_id = ${user_id}`, action: "delete" },
    { table: "notification_settings", where: sql`user_id = ${user_id}`, action: "delete" },
    { table: "notifications", where: sql`user_id = ${user_id}`, action: "delete" },
    { table: "one_time_codes", where: sql`user_id = ${user_id}`, action: "delete" },
    // Last: the statements above find the conversations through it.
    { table: "service_conversations", where: sql`id IN (${convs})`, action: "delete" },
    { table: "users", where: sql`id = ${user_id} AND (account <> ${erasedAccount(user_id)} OR password_hash <> ${ERASED_PASSWORD} OR lang IS NOT NULL)`, action: sql`account = ${erasedAccount(user_id)}, password_hash = ${ERASED_PASSWORD}, lang = NULL` },
  ];
}

/** Everything erasing this user would do, read without changing anything. */
export async function planErasure(db: Db, user_id: number): Promise<ErasurePlan | null> {
  const [user] = await db.all<{ account: string }>(sql`SELECT account FROM users WHERE id = ${user_id}`);
  if (!user) return null;
  const rows: Record<string, number> = {};
  for (const p of personalRows(user_id)) {
    const [r] = await db.all<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${sql.identifier(p.table)} WHERE ${p.where}`);
    rows[p.table] = Number(r.n);
  }
  const files = (await db.all<{ r2_key: string }>(sql`SELECT r2_key FROM uploads WHERE ${personalRows(user_id).find((p) => p.table === "uploads")!.where}`)).map((r) => r.r2_key);
  const [money] = await db.all<{ balance: number }>(sql`SELECT COALESCE(SUM(balance_micro), 0) AS balance FROM ledger_accounts WHERE owner_kind = 'user' AND user_id = ${user_id}`);
  const [open] = await db.all<Record<string, number>>(sql`SELECT
      (SELECT COUNT(*) FROM orders WHERE user_id = ${user_id} AND status = 'open') AS orders,
      (SELECT COUNT(*) FROM withdrawals WHERE user_id = ${user_id} AND status = 'review') AS withdrawals,
      (SELECT COUNT(*) FROM deposits WHERE user_id = ${user_id} AND status IN ('review', 'confirming')) AS deposits,
      (SELECT COUNT(*) FROM adjustments WHERE user_id = ${user_id} AND status = 'pending') AS adjustments,
      (SELECT COUNT(*) FROM promotion_bookings WHERE user_id = ${user_id} AND status = 'pending') AS promotion_bookings`);
  return { user_id, account: user.account, rows, files, balance_micro: Number(money.balance), open: Object.fromEntries(Object.entries(open).map(([k, v]) => [k, Number(v)]).filter(([, v]) => v !== 0)) };
}

/**
 * Erases the user: every row change and the audit entry in one D1 batch, then the files. A file
 * whose delete fails is left without a row; the pruning job's orphan walk removes it later.
 */
export async function eraseUser(
  db: Db,
  bucket: R2Bucket,
  user_id: number,
  opts: { operator_id: number; reason: string; allow_open?: boolean },
  now_ms: number,
): Promise<EraseResult> {
  const plan = await planErasure(db, user_id);
  if (!plan) return { status: "user_unknown" };
  if (!opts.allow_open && plan.balance_micro !== 0) return { status: "has_money", plan };
  if (!opts.allow_open && Object.keys(plan.open).length > 0) return { status: "has_open_items", plan };
  const changes = personalRows(user_id).map((p) =>
    p.action === "delete" ? sql`DELETE FROM ${sql.identifier(p.table)} WHERE ${p.where}` : sql`UPDATE ${sql.identifier(p.table)} SET ${p.action} WHERE ${p.where}`,
  );
  const audit = auditInsert(db, { operator_id: opts.operator_id, action: "user.erase", target: `user:${user_id}`, reason: opts.reason, data: { rows: plan.rows, files: plan.files.length, allow_open: opts.allow_open === true, balance_micro: plan.balance_micro, open: plan.open } }, now_ms);
  await db.$client.batch(d1Statements(db, [...changes, audit]));
  let files_deleted = 0;
  for (let i = 0; i < plan.files.length; i += 500) {
    const chunk = plan.files.slice(i, i + 500);
    await bucket.delete(chunk).then(
      () => (files_deleted += chunk.length),
      () => {},
    );
  }
  return { status: "ok", plan, files_deleted };
}
