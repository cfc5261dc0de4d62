import { and, desc, eq, lt, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { known_devices, login_attempts, users } from "../../db/schema";
import { notificationInsert } from "../notifications/notify";
import type { Client, SignInClient, SignInMethod } from "./client";

/** How many sign-in attempts a user's history keeps. */
export const LOGIN_HISTORY_KEEP = 50;

/** The attempt's row and the pruning of the user's history, for one batch. */
export function attemptRecord(db: Db, user_id: number | SQL, client: SignInClient, ok: boolean, now_ms: number): BatchItem<"sqlite">[] {
  const uid = user_id as number;
  return [db.insert(login_attempts).values({ user_id: uid, at_ms: now_ms, ok: ok ? 1 : 0, method: client.method, device: client.device, ip: client.ip }), pruneHistory(db, user_id)];
}

/** Deletes everything older than the newest 50; the bound is the 50th newest id, NULL (nothing goes) with fewer rows. */
function pruneHistory(db: Db, user_id: number | SQL) {
  const uid = user_id as number;
  const fiftieth = sql`(SELECT id FROM login_attempts WHERE user_id = ${uid} ORDER BY id DESC LIMIT 1 OFFSET ${LOGIN_HISTORY_KEEP - 1})`;
  return db.delete(login_attempts).where(and(eq(login_attempts.user_id, uid), lt(login_attempts.id, fiftieth)));
}

/**
 * A refused proof for `account`, recorded when the account exists (unknown accounts have no
 * history). One batch of the same statements either way, inserting through a select, so the
 * time a refusal takes does not tell whether the account exists.
 */
export async function recordFailedSignIn(db: Db, account: string, client: SignInClient, now_ms: number) {
  const user_id = sql`(SELECT id FROM users WHERE account = ${account})`;
  await db.batch([
    db.insert(login_attempts).select(
      db
        .select({
          // NULL into the integer primary key: SQLite numbers the row.
          id: sql<number>`NULL`.as("id"),
          user_id: users.id,
          at_ms: sql<number>`${now_ms}`.as("at_ms"),
          ok: sql<number>`0`.as("ok"),
          method: sql<SignInMethod>`${client.method}`.as("method"),
          device: sql<string>`${client.device}`.as("device"),
          ip: sql<string>`${client.ip}`.as("ip"),
        })
        .from(users)
        .where(eq(users.account, account)),
    ),
    pruneHistory(db, user_id),
  ]);
}

/** The first session of a new account: its device becomes known without a notice. */
export function firstDevice(db: Db, user_id: SQL, client: Client, now_ms: number) {
  return db
    .insert(known_devices)
    .values({ user_id: user_id as unknown as number, device: client.device, ip: client.ip, first_seen_at_ms: now_ms })
    .onConflictDoNothing();
}

/**
 * What a successful sign-in of an existing user writes beside its session: the attempt, and
 * for a device label and network not seen before, the pair and a new_sign_in notice. The
 * notice's dedupe key names the pair, so two racing first sign-ins notify once.
 */
export async function signInRecords(db: Db, user_id: number, client: SignInClient, now_ms: number): Promise<BatchItem<"sqlite">[]> {
  const known = await db.query.known_devices.findFirst({
    where: and(eq(known_devices.user_id, user_id), eq(known_devices.device, client.device), eq(known_devices.ip, client.ip)),
    columns: { user_id: true },
  });
  const records = attemptRecord(db, user_id, client, true, now_ms);
  if (known) return records;
  return [
    ...records,
    db.insert(known_devices).values({ user_id, device: client.device, ip: client.ip, first_seen_at_ms: now_ms }).onConflictDoNothing(),
    notificationInsert(db, {
      user_id,
      kind: "new_sign_in",
      params: { device: client.device, ip: client.ip },
      dedupe_key: `new_sign_in:${client.device}|${client.ip}`,
      now_ms,
    }),
  ];
}

export type LoginHistoryEntry = { at_ms: number; ok: boolean; method: SignInMethod; device: string; ip: string };

export async function loginHistory(db: Db, user_id: number): Promise<LoginHistoryEntry[]> {
  const rows = await db
    .select()
    .from(login_attempts)
    .where(eq(login_attempts.user_id, user_id))
    .orderBy(desc(login_attempts.id))
    .limit(LOGIN_HISTORY_KEEP);
  return rows.map((r) => ({ at_ms: r.at_ms, ok: r.ok === 1, method: r.method, device: r.device, ip: r.ip }));
}
