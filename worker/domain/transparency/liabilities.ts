/**
 * Proof of liabilities: a snapshot of what the platform owes each user (every real user ledger
 * account together: available, locked in orders and withdrawals under review, earn principal;
 * never demo money, which nobody is owed), committed in a Merkle sum tree whose total and root are signed. Each
 * user can check that their balance is counted in the total; nobody learns another's balance.
 * Accounts are named by their log pseudonym and each leaf is salted with a per-snapshot nonce
 * (an HMAC, so it can be recomputed, never guessed). The leaves file in the log's bucket holds
 * exactly the leaves (pseudonym, balance, nonce): no user id (decision 109); a user's entry is
 * found by their pseudonym.
 */
import { desc, sql } from "drizzle-orm";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import type { Db } from "../../db/client";
import { liability_snapshots } from "../../db/schema";
import { signNote } from "./note";
import { pseudonymOf, type LogKeys, type TileStore } from "./sequencer";
import { buildSumTree, pathOf, type SumLeaf, type SumPathStep } from "./sum-tree";
import { hex } from "./verify";

export type Snapshot = typeof liability_snapshots.$inferSelect;

const leavesPath = (taken_at_ms: number) => `liabilities/${taken_at_ms}.json`;

function nonceOf(keys: LogKeys, taken_at_ms: number, user_id: number): string {
  return hex(hmac(sha256, keys.pseudonym_key, new TextEncoder().encode(`liabilities:${taken_at_ms}:${user_id}`))).slice(0, 32);
}

/** The note: `<origin>/liabilities`, the time, the total and the root, signed with the log's key. */
export function liabilitiesBody(origin: string, taken_at_ms: number, total_micro: string, root_hash: string): string {
  return `${origin}/liabilities\n${taken_at_ms}\n${total_micro}\n${root_hash}\n`;
}

export async function takeSnapshot(db: Db, store: TileStore, keys: LogKeys, taken_by: string, now_ms: number): Promise<Snapshot> {
  // One batch: the balances and the last transfer they include are read in the same transaction.
  const [balances, last] = (await db.batch([
    db.all<{ user_id: number; balance: number }>(sql`SELECT user_id, SUM(balance_micro) AS balance FROM ledger_accounts WHERE owner_kind = 'user' AND user_id IS NOT NULL AND code NOT IN ('demo', 'demo_locked') GROUP BY user_id ORDER BY user_id`),
    db.all<{ id: number | null }>(sql`SELECT MAX(id) AS id FROM ledger_transfers`),
  ] as unknown as Parameters<typeof db.batch>[0])) as unknown as [{ user_id: number; balance: number }[], { id: number | null }[]];
  const leaves: SumLeaf[] = balances.map((b) => ({
    account: pseudonymOf(keys.pseudonym_key, b.user_id),
    balance_micro: String(b.balance),
    nonce: nonceOf(keys, now_ms, b.user_id),
  }));
  // Ordered by pseudonym: a leaf's place says nothing about who or when.
  leaves.sort((a, b) => (a.account < b.account ? -1 : 1));
  const tree = buildSumTree(leaves.length ? leaves : [{ account: "none", balance_micro: "0", nonce: "0" }]);
  const note = signNote(liabilitiesBody(keys.origin, now_ms, tree.total_micro, tree.root_hash), keys.origin, keys.signing_seed);
  await store.put(leavesPath(now_ms), new TextEncoder().encode(JSON.stringify(leaves)));
  const [row] = await db
    .insert(liability_snapshots)
    .values({ taken_at_ms: now_ms, total_micro: Number(tree.total_micro), root_hash: tree.root_hash, note, through_transfer_id: last[0]?.id ?? 0, accounts: leaves.length, taken_by })
    .returning();
  return row;
}

export async function latestSnapshot(db: Db): Promise<Snapshot | undefined> {
  return db.query.liability_snapshots.findFirst({ orderBy: desc(liability_snapshots.id) });
}

export type LiabilityEntry = { snapshot: Snapshot; leaf: SumLeaf; path: SumPathStep[] };

/**
 * A leaves file written before decision 109 named each user id beside the pseudonym: the same
 * leaves without them (null when the file has none). The root never covered the ids, so every
 * proof stays as it was.
 */
export function withoutUserIds(text: string): string | null {
  const stored = JSON.parse(text) as (SumLeaf & { user_id?: number })[];
  if (!stored.some((l) => "user_id" in l)) return null;
  return JSON.stringify(stored.map(({ account, balance_micro, nonce }) => ({ account, balance_micro, nonce })));
}

/** Every leaves file in the bucket, written again without user ids where it had them; answers how many. */
export async function scrubLiabilityFiles(bucket: R2Bucket): Promise<number> {
  let scrubbed = 0;
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: "liabilities/", cursor });
    for (const o of page.objects) {
      const body = await bucket.get(o.key);
      const clean = body ? withoutUserIds(await body.text()) : null;
      if (clean === null) continue;
      await bucket.put(o.key, clean);
      scrubbed += 1;
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return scrubbed;
}

/** The user's leaf and path in the latest snapshot, or null when they joined after it. */
export async function entryOf(db: Db, store: TileStore, keys: LogKeys, user_id: number): Promise<LiabilityEntry | null> {
  const snapshot = await latestSnapshot(db);
  if (!snapshot) return null;
  const path = leavesPath(snapshot.taken_at_ms);
  const raw = await store.get(path);
  if (!raw) return null;
  const text = new TextDecoder().decode(raw);
  const leaves = (JSON.parse(text) as SumLeaf[]).map(({ account, balance_micro, nonce }) => ({ account, balance_micro, nonce }));
  const clean = withoutUserIds(text);
  if (clean !== null) await store.put(path, new TextEncoder().encode(clean));
  const account = pseudonymOf(keys.pseudonym_key, user_id);
  const index = leaves.findIndex((l) => l.account === account);
  if (index < 0) return null;
  return { snapshot, leaf: leaves[index], path: pathOf(buildSumTree(leaves), index) };
}

/**
 * Each snapshot's total against the ledger as of its last transfer: what the users' accounts
 * held after transfer `through_transfer_id` (`npm run ledger:check`).
 */
export async function checkSnapshots(db: Db): Promise<{ id: number; total_micro: number; ledger_micro: number }[]> {
  return db.all<{ id: number; total_micro: number; ledger_micro: number }>(sql`
    SELECT s.id, s.total_micro,
      COALESCE((SELECT SUM(CASE WHEN c.owner_kind = 'user' AND c.code NOT IN ('demo', 'demo_locked') THEN t.amount_micro ELSE 0 END) - SUM(CASE WHEN d.owner_kind = 'user' AND d.code NOT IN ('demo', 'demo_locked') THEN t.amount_micro ELSE 0 END)
        FROM ledger_transfers t JOIN ledger_accounts d ON d.id = t.debit_account_id JOIN ledger_accounts c ON c.id = t.credit_account_id
        WHERE t.id <= s.through_transfer_id), 0) AS ledger_micro
    FROM liability_snapshots s ORDER BY s.id`);
}
