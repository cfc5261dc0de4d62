/**
 * The sequencer's work, as plain functions: take the next rows of the log's inbox in order,
 * make their leaves, write the tiles (hashes and entries) to the log's bucket, sign a checkpoint
 * and record leaves and checkpoint in one D1 batch. The state is what D1 holds (the last leaf
 * and its inbox row), so a crash anywhere repeats the same batch with the same bytes: tiles are
 * deterministic, and the D1 batch is all or nothing.
 */
import { sql } from "drizzle-orm";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { d1Statements, fixedStatement, jsonAt, type Db } from "../../db/client";
import { log_checkpoints } from "../../db/schema";
import { appendHashes, treeRoot, type HashId } from "./merkle";
import { checkpointBody, publicKeyOf, signNote, verifierKey } from "./note";
import { entryBundlesToWrite, hashTilesToWrite, tileReader, TILE_WIDTH } from "./tiles";
import { accountName, orderLeaf, transferLeaf, type AccountRow, type TransferRow } from "./leaves";
import { orderTicks, type Order } from "../trades/orders";
import { b64encode, HANDOVER_LINE, hex, leafHash, openNote, type Hash } from "./verify";

/**
 * The log's keys: Ed25519 seed for checkpoints, HMAC key for pseudonyms, and the log's name.
 * `previous_seed`: the key being handed over from (decision 136); `handover_from` set means the
 * next checkpoint is the handover, signed by that key and `signing_seed` and naming the new key.
 */
export type LogKeys = { origin: string; signing_seed: Uint8Array; pseudonym_key: Uint8Array; previous_seed?: Uint8Array | null; handover_from?: Uint8Array | null };

/** Where the handover checkpoints are kept in the log's bucket, for verifiers that pinned an older key. */
export const HANDOVERS_PATH = "key-handovers";
export type HandoverRecord = { tree_size: number; from: string; to: string; note: string };

/**
 * Whether the next checkpoint may be signed, and how (decision 136): "fresh" (no checkpoint yet)
 * and "current" (the latest is signed by our key) sign as usual; "handover" (the latest is signed
 * by `previous_seed`) signs the handover; "unknown_key" (the latest is signed by neither) signs
 * nothing: a new key without a handover would look like a fork to every verifier.
 */
export async function keyContinuity(db: Db, keys: LogKeys): Promise<"fresh" | "current" | "handover" | "unknown_key"> {
  const [latest] = await db.all<{ note: string }>(sql`SELECT note FROM log_checkpoints ORDER BY tree_size DESC LIMIT 1`);
  if (!latest) return "fresh";
  if (openNote(latest.note, verifierKey(keys.origin, publicKeyOf(keys.signing_seed))).status === "ok") return "current";
  if (keys.previous_seed && openNote(latest.note, verifierKey(keys.origin, publicKeyOf(keys.previous_seed))).status === "ok") return "handover";
  return "unknown_key";
}

/** The handovers so far, oldest first (an absent or damaged file reads as none: each note proves itself). */
export async function readHandovers(get: (path: string) => Promise<Uint8Array | null>): Promise<HandoverRecord[]> {
  const bytes = await get(HANDOVERS_PATH);
  if (!bytes) return [];
  try {
    const list = JSON.parse(new TextDecoder().decode(bytes)) as HandoverRecord[];
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/** Where tiles live (R2 in the Worker, a Map in tests). */
export type TileStore = { get(path: string): Promise<Uint8Array | null>; put(path: string, bytes: Uint8Array): Promise<void> };

/**
 * Leaves per batch, at most: one D1 batch of their rows stays far inside D1's limits, and a
 * short batch is a short turn on the server, so requests arriving during a settlement burst
 * wait less (health p99 80 ms at 200 against 92-118 ms at 400). One tile's width (decision 153).
 */
export const BATCH_LEAVES = TILE_WIDTH;

/**
 * How many leaves the next batch may take: the most, up to `max`, that ends on a tile's edge
 * (decision 153). A batch that ends inside a tile leaves a partial entry bundle and partial hash
 * tiles, and the next batch writes them again whole: at 200 leaves a batch, about as many entries
 * rewritten as appended. Ending on the edge, the next batch starts fresh tiles. Below one tile's
 * width (tests) the limit is `max` itself.
 */
export function batchLimit(tree_size: number, max: number): number {
  if (max < TILE_WIDTH) return max;
  const to_edge = TILE_WIDTH - (tree_size % TILE_WIDTH);
  return to_edge + Math.floor((max - to_edge) / TILE_WIDTH) * TILE_WIDTH;
}

/** An account's pseudonym: HMAC-SHA-256 of its user id under the log's secret key, 128 bits in hex. */
export function pseudonymOf(key: Uint8Array, user_id: number): string {
  // Every leaf of an account carries its pseudonym: worked out once per key and account (bounded).
  let known = pseudonyms.get(key);
  if (!known) pseudonyms.set(key, (known = new Map()));
  let p = known.get(user_id);
  if (p === undefined) {
    p = hex(hmac(sha256, key, new TextEncoder().encode(`user:${user_id}`))).slice(0, 32);
    if (known.size >= 100_000) known.clear();
    known.set(user_id, p);
  }
  return p;
}
const pseudonyms = new WeakMap<Uint8Array, Map<number, string>>();

type QueueRow = { seq: number; kind: string; ref_id: string; payload: string | null };
/** An inbox row as the batch's one read gives it: a transfer's record and its accounts joined in (decision 168). */
type BatchRow = QueueRow & {
  size: number;
  t_id: number | null;
  t_code: string;
  t_ref_type: string;
  t_ref_id: string;
  t_amount_micro: number;
  t_created_at_ms: number;
  d_kind: string;
  d_user: number | null;
  d_code: string;
  c_kind: string;
  c_user: number | null;
  c_code: string;
};
type Made = { seq: number; kind: string; ref_id: string; user_id: number | null; leaf: string };

/**
 * The next batch in ONE read: the log's state (its size and the last inbox row it holds), then up
 * to `max + 1` inbox rows after that cursor, each transfer's record and both accounts joined in by
 * primary key. The state is two subqueries, each one index look-up: a SELECT holding both
 * MAX()es scanned every leaf (SQLite's min/max shortcut takes a lone aggregate).
 * Before it, a batch was a state read, the inbox read and a read of the transfers per 90 rows
 * (D1's bound parameters): five round trips for 256 leaves, each a round trip to the database
 * in production and a turn of the one thread locally. With an empty inbox the one row says the
 * state, its inbox columns NULL.
 */
export const nextBatchQuery = (max: number) => sql`
  WITH state AS (SELECT COALESCE((SELECT MAX(leaf_index) FROM log_leaves) + 1, 0) AS size, COALESCE((SELECT MAX(queue_seq) FROM log_leaves), 0) AS cursor),
  queue AS (SELECT seq, kind, ref_id, payload FROM log_queue WHERE seq > (SELECT cursor FROM state) ORDER BY seq LIMIT ${max + 1})
  SELECT s.size, q.seq, q.kind, q.ref_id, q.payload,
    t.id AS t_id, t.code AS t_code, t.ref_type AS t_ref_type, t.ref_id AS t_ref_id, t.amount_micro AS t_amount_micro, t.created_at_ms AS t_created_at_ms,
    d.owner_kind AS d_kind, d.user_id AS d_user, d.code AS d_code, c.owner_kind AS c_kind, c.user_id AS c_user, c.code AS c_code
  FROM state s
  LEFT JOIN queue q ON true
  LEFT JOIN ledger_transfers t ON q.kind = 'transfer' AND t.id = CAST(q.ref_id AS INTEGER)
  LEFT JOIN ledger_accounts d ON d.id = t.debit_account_id
  LEFT JOIN ledger_accounts c ON c.id = t.credit_account_id
  ORDER BY q.seq`;

/** Makes the leaves of these inbox rows: transfers from the columns joined in, orders read with their ticks. */
async function makeLeaves(db: Db, rows: BatchRow[], pseudonym: (user_id: number) => string): Promise<Made[]> {
  const orderIds = rows.filter((r) => r.kind === "order").map((r) => Number(r.ref_id));
  const orders = new Map<number, Order>();
  if (orderIds.length > 0) {
    // One read for the batch's orders (their ticks in their rows, decision 169); only orders
    // settled before that column read their ticks' rows.
    for (const o of await db.all<Order>(sql`SELECT * FROM orders WHERE id IN (SELECT value FROM json_each(${JSON.stringify(orderIds)}))`)) orders.set(o.id, o);
  }
  const ticks = await orderTicks(db, [...orders.values()]);
  return rows.map((r) => {
    if (r.kind === "transfer") {
      if (r.t_id === null) throw new Error(`log: transfer ${r.ref_id} is gone`);
      const t: TransferRow = { id: r.t_id, code: r.t_code, ref_type: r.t_ref_type, ref_id: r.t_ref_id, amount_micro: r.t_amount_micro, created_at_ms: r.t_created_at_ms };
      const debit: AccountRow = { owner_kind: r.d_kind, user_id: r.d_user, code: r.d_code };
      const credit: AccountRow = { owner_kind: r.c_kind, user_id: r.c_user, code: r.c_code };
      const user_id = debit.owner_kind === "user" ? debit.user_id : credit.owner_kind === "user" ? credit.user_id : null;
      return { seq: r.seq, kind: r.kind, ref_id: r.ref_id, user_id, leaf: transferLeaf(t, accountName(debit, pseudonym), accountName(credit, pseudonym), pseudonym) };
    }
    if (r.kind === "order") {
      const o = orders.get(Number(r.ref_id));
      if (!o) throw new Error(`log: order ${r.ref_id} is gone`);
      return { seq: r.seq, kind: r.kind, ref_id: r.ref_id, user_id: o.user_id, leaf: orderLeaf(o, ticks.get(o.id) ?? [], pseudonym(o.user_id)) };
    }
    if (r.payload === null) throw new Error(`log: ${r.kind} ${r.ref_id} has no leaf`);
    return { seq: r.seq, kind: r.kind, ref_id: r.ref_id, user_id: null, leaf: r.payload };
  });
}

/**
 * Appends the next batch of the inbox. Answers how many leaves went in, the new size and whether
 * more rows are waiting. The bucket's `checkpoint` is written when no more are waiting;
 * `publish_checkpoint` false: never, it is left for the
 * witnesses' round to write once a quorum cosigned (decision 108).
 */
export async function appendBatch(
  db: Db,
  store: TileStore,
  keys: LogKeys,
  now_ms: number,
  { max = BATCH_LEAVES, publish_checkpoint = true }: { max?: number; publish_checkpoint?: boolean } = {},
): Promise<{ appended: number; tree_size: number; more: boolean }> {
  const read = await db.all<BatchRow>(nextBatchQuery(max));
  const tree_size = Number(read[0]?.size ?? 0);
  const limit = batchLimit(tree_size, max);
  const rows = read.filter((r) => r.seq !== null);
  const more = rows.length > limit;
  const taken = rows.slice(0, limit);
  if (taken.length === 0) return { appended: 0, tree_size, more: false };
  const made = await makeLeaves(db, taken, (user_id) => pseudonymOf(keys.pseudonym_key, user_id));
  const entries = made.map((m) => new TextEncoder().encode(m.leaf));
  const get = (path: string) => store.get(path);
  const hashes = await appendHashes(tree_size, entries.map((e) => leafHash(e)), tileReader(get, tree_size));
  const new_size = tree_size + made.length;
  const writes = [...(await hashTilesToWrite(tree_size, new_size, hashes, get)), ...(await entryBundlesToWrite(tree_size, entries, get))];
  // Tiles first: a checkpoint is only ever recorded over tiles that are already published.
  await Promise.all(writes.map((w) => store.put(w.path, w.bytes)));
  const byId = new Map(hashes.map((h) => [`${h.id.level}/${h.id.index}`, h.hash]));
  const older = tileReader(get, tree_size);
  const root = await treeRoot(new_size, async (ids: HashId[]) => {
    const missing = ids.filter((id) => !byId.has(`${id.level}/${id.index}`));
    const got = missing.length ? await older(missing) : [];
    const fromOld = new Map(missing.map((id, i) => [`${id.level}/${id.index}`, got[i]]));
    return ids.map((id) => (byId.get(`${id.level}/${id.index}`) ?? fromOld.get(`${id.level}/${id.index}`)) as Hash);
  });
  const note = keys.handover_from ? await signHandover(store, keys, keys.handover_from, new_size, root) : signNote(checkpointBody(keys.origin, new_size, root), keys.origin, keys.signing_seed);
  // The batch's leaves as one statement over one JSON parameter (not an insert per 15 rows).
  const leafRows = JSON.stringify(made.map((m, i) => [tree_size + i, m.seq, m.kind, m.ref_id, m.user_id, m.leaf]));
  await db.$client.batch(
    d1Statements(db, [
      LEAF_ROWS(leafRows),
      db.insert(log_checkpoints).values({ tree_size: new_size, root_hash: b64encode(root), note, created_at_ms: now_ms }),
    ]),
  );
  // While more rows wait, the next batch follows at once and signs a newer checkpoint: the
  // bucket's copy is written by the batch that empties the inbox (each batch's checkpoint is
  // still recorded above, and the API serves it). A bucket write a batch was a quarter of a
  // drain's writes: about 1.7 ms of the local thread each, a round trip in production.
  if (publish_checkpoint && !more) await store.put("checkpoint", new TextEncoder().encode(note));
  return { appended: made.length, tree_size: new_size, more };
}

/** A batch's leaves, each row `[leaf_index, queue_seq, kind, ref_id, user_id, leaf]` (rendered once). */
const LEAF_ROWS = fixedStatement(
  sql`INSERT INTO log_leaves (leaf_index, queue_seq, kind, ref_id, user_id, leaf) SELECT ${jsonAt(0)}, ${jsonAt(1)}, ${jsonAt(2)}, ${jsonAt(3)}, ${jsonAt(4)}, ${jsonAt(5)} FROM json_each(${sql.placeholder("rows")}) WHERE true ORDER BY key`,
);

/**
 * The handover checkpoint: its body names the new verifier key, and the old key signs it, then
 * the new one. Recorded in the bucket's handover list before D1 records the checkpoint (like the
 * tiles), so a verifier that pinned the old key always finds its way; a repeat after a crash
 * writes the same note (Ed25519 is deterministic) and is recorded once.
 */
async function signHandover(store: TileStore, keys: LogKeys, from: Uint8Array, tree_size: number, root: Hash): Promise<string> {
  const to = verifierKey(keys.origin, publicKeyOf(keys.signing_seed));
  const note = signNote(checkpointBody(keys.origin, tree_size, root, [`${HANDOVER_LINE}${to}`]), keys.origin, from, keys.signing_seed);
  const list = (await readHandovers((path) => store.get(path))).filter((h) => h.tree_size < tree_size);
  list.push({ tree_size, from: verifierKey(keys.origin, publicKeyOf(from)), to, note });
  await store.put(HANDOVERS_PATH, new TextEncoder().encode(JSON.stringify(list)));
  return note;
}
