/**
 * The transparency log inside workerd: records reach the log's inbox by triggers, the
 * sequencer gives them leaves, tiles and a signed checkpoint, and what /api/proof answers
 * verifies with the same code users run (worker/domain/transparency/verify.ts).
 */
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { orders } from "../../../worker/db/schema";
import { grantDemoMoney } from "../../../worker/domain/ledger/demo";
import { decide, writeSettlements } from "../../../worker/domain/trades/settlement-writes";
import { BATCH_LEAVES, nextBatchQuery } from "../../../worker/domain/transparency/sequencer";
import { decodeEntryBundle, entriesPath, TILE_WIDTH, tilePath, tileWidth } from "../../../worker/domain/transparency/tiles";
import { b64decode, canonicalJson, leafHash, openNote, parseCheckpoint, verifyConsistency, verifyInclusion } from "../../../worker/domain/transparency/verify";
import { logSequencer } from "../../../durable-objects/transparency/log-api";
import { call, db, newUser, page, testEnv } from "../helpers";
import { fundedUser, operatorToken } from "../money/helpers";
import { entered, market, price, USDT } from "../trades/market-helpers";

const drain = () => logSequencer(testEnv).drain();

/** Opens the note with the log's key and answers its size and root. */
async function checkpointOf(note: string) {
  const key = (await call("/api/proof/key")).data.verifier_key as string;
  const opened = openNote(note, key);
  expect(opened.status).toBe("ok");
  return parseCheckpoint((opened as { body: string }).body)!;
}

async function included(answer: { leaf: string; leaf_index: number; tree_size: number; proof: string[]; checkpoint: string }) {
  const cp = await checkpointOf(answer.checkpoint);
  expect(cp.tree_size).toBe(answer.tree_size);
  return verifyInclusion(leafHash(answer.leaf), answer.leaf_index, answer.tree_size, answer.proof.map(b64decode), cp.root_hash);
}

describe("transparency log", () => {
  let A: Awaited<ReturnType<typeof fundedUser>>;
  let orderId = 0;
  beforeAll(async () => {
    A = await fundedUser("500");
    const { id: product_id } = await market({ durations: [{ seconds: 60, profit_rate_bp: 8500, min_stake_micro: USDT, max_stake_micro: 1000 * USDT }] });
    const placed = await call("/api/order/addorder", { product_id, direction: "up", amount: "10", seconds: 60, quote_price: await price(product_id) }, { token: A.token });
    expect(placed.code).toBe(1);
    orderId = placed.data.id;
    // Settled from ticks written here (the hub's own loop is tested in tests/api/trades).
    const order = await entered(orderId);
    const r = await writeSettlements(db, [decide(order, [{ ts_ms: order.entry_tick_ts_ms, price_e8: order.entry_price_e8 }, { ts_ms: order.delivery_at_ms, price_e8: order.entry_price_e8 + 1_000_000 }])], order.delivery_at_ms + 1);
    expect(r.settled).toBe(1);
  });

  it("every transfer and the settled order are queued by the database itself, and none twice", async () => {
    const [{ transfers }] = await db.all<{ transfers: number }>(sql`SELECT COUNT(*) AS transfers FROM ledger_transfers`);
    const [{ queued }] = await db.all<{ queued: number }>(sql`SELECT COUNT(*) AS queued FROM log_queue WHERE kind = 'transfer'`);
    expect(Number(queued)).toBe(Number(transfers));
    expect((await db.all(sql`SELECT 1 FROM log_queue WHERE kind = 'order' AND ref_id = ${String(orderId)}`)).length).toBe(1);
  });

  it("before the sequencer ran, an inclusion request says so; after, the order's proof verifies", async () => {
    expect((await call("/api/proof/inclusion", { order_id: orderId }, { token: A.token })).data.error).toBe("log_pending");
    const size = await drain();
    expect(size).toBeGreaterThan(3);
    const r = await call("/api/proof/inclusion", { order_id: orderId }, { token: A.token });
    expect(r.code, r.msg).toBe(1);
    expect(await included(r.data)).toBe(true);
  });

  it("the order's leaf says what the order detail says, names the account only by pseudonym", async () => {
    const r = await call("/api/proof/inclusion", { order_id: orderId }, { token: A.token });
    const detail = (await call("/api/order/orderinfo", { id: orderId }, { token: A.token })).data;
    const leaf = JSON.parse(r.data.leaf);
    expect(leaf).toMatchObject({ kind: "order", v: 3, feed: "simulation", id: orderId, outcome: detail.status, direction: "up", stake_micro: "10000000", rule_version: 2 });
    expect(leaf.entry).toEqual({ price: detail.entry_price, ts: detail.entry_ts });
    expect(leaf.exit).toEqual({ price: detail.settlement_price, ts: detail.settlement_ts });
    expect(leaf.payout_micro).toBe(String(detail.payout_micro));
    expect(leaf.ticks.length).toBeGreaterThanOrEqual(2);
    const me = (await call("/api/user/user", {}, { token: A.token })).data;
    expect(r.data.leaf).not.toContain(A.account);
    expect(leaf.account).toMatch(/^[0-9a-f]{32}$/);
    expect(leaf.account).toBe(me.pseudonym);
    // The canonical form: keys sorted, no spaces.
    expect(r.data.leaf).toBe(canonicalJson(leaf));
  });

  it("the statement proves every one of the user's transfers; others' records are refused; operators may read any", async () => {
    const s = await call("/api/proof/statement", {}, { token: A.token });
    expect(s.code).toBe(1);
    expect(s.data.list.length).toBeGreaterThanOrEqual(3); // deposit, stake, fee, payout
    const cp = await checkpointOf(s.data.checkpoint);
    for (const item of s.data.list) expect(verifyInclusion(leafHash(item.leaf), item.leaf_index, cp.tree_size, item.proof.map(b64decode), cp.root_hash)).toBe(true);
    const B = await fundedUser("100");
    await drain();
    expect((await call("/api/proof/inclusion", { order_id: orderId }, { token: B.token })).status).toBe(404);
    expect((await call("/api/proof/inclusion", { transfer_id: s.data.list[0].transfer_id }, { token: B.token })).status).toBe(404);
    expect((await call("/api/proof/inclusion", { order_id: orderId })).status).toBe(401);
    const op = await operatorToken();
    expect(await included((await call("/api/proof/inclusion", { order_id: orderId }, { token: op })).data)).toBe(true);
  });

  it("each checkpoint is kept; consecutive ones are consistent", async () => {
    await fundedUser("50");
    await drain();
    const list = (await call("/api/proof/checkpoints", { row: 100 })).data.list as { tree_size: number; note: string }[];
    expect(list.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < list.length; i += 1) {
      const [a, b] = [await checkpointOf(list[i - 1].note), await checkpointOf(list[i].note)];
      const proof = (await call(`/api/proof/consistency?first=${a.tree_size}&second=${b.tree_size}`, undefined, { method: "GET" })).data.proof as string[];
      expect(verifyConsistency(a.tree_size, b.tree_size, proof.map(b64decode), a.root_hash, b.root_hash)).toBe(true);
    }
    expect((await call("/api/proof/checkpoint", undefined, { method: "GET" })).data.tree_size).toBe(list[list.length - 1].tree_size);
  });

  it("the published history cannot be edited, and a rewritten tile no longer proves anything", async () => {
    const refused = await db.run(sql`UPDATE log_leaves SET leaf = 'x' WHERE leaf_index = 0`).then(() => null, (e: unknown) => e);
    expect(String((refused as { cause?: Error })?.cause?.message ?? refused)).toContain("log_append_only");
    const before = (await call("/api/proof/inclusion", { order_id: orderId }, { token: A.token })).data;
    expect(await included(before)).toBe(true);
    // One bit of a neighbour's hash in the order's own tile: the proof is built from that tile.
    const index = Math.floor(before.leaf_index / TILE_WIDTH);
    const path = tilePath(0, index, tileWidth(0, index, before.tree_size));
    const neighbour = (before.leaf_index ^ 1) < before.tree_size ? before.leaf_index ^ 1 : before.leaf_index - 1;
    const tile = new Uint8Array(await (await testEnv.LOG.get(path))!.arrayBuffer());
    tile[(neighbour % TILE_WIDTH) * 32 + 8] ^= 1;
    await testEnv.LOG.put(path, tile);
    const after = (await call("/api/proof/inclusion", { order_id: orderId }, { token: A.token })).data;
    expect(await included(after)).toBe(false);
  });

  it("the public /proof page says plainly that this log names no witnesses", async () => {
    const html = await (await page("/proof")).text();
    expect(html).toContain('data-testid="proof-witnesses"');
    expect(html).toContain("This log names no witnesses.");
    expect(html).not.toContain("--witness");
  });

  it("the tiles are public, cached for good, and only tile paths are served", async () => {
    const size = (await call("/api/proof/checkpoint", undefined, { method: "GET" })).data.tree_size as number;
    const res = await page(`/api/proof/${entriesPath(0, Math.min(256, size))}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toContain("immutable");
    const first = decodeEntryBundle(new Uint8Array(await res.arrayBuffer()))[0];
    expect(JSON.parse(new TextDecoder().decode(first)).kind).toBe("transfer");
    expect((await page("/api/proof/tile/checkpoint")).status).toBe(404);
    expect((await page("/api/proof/tile/0/999")).status).toBe(404);
  });

  it("no leaf names a user id: a transfer that refers to a user (the demo grant) names their pseudonym", async () => {
    const u = await newUser();
    expect((await grantDemoMoney(db, u.id, Date.now())).status).toBe("ok");
    await drain();
    const [row] = await db.all<{ leaf: string }>(sql`SELECT leaf FROM log_leaves WHERE kind = 'transfer' AND leaf LIKE '%"code":"demo_grant"%' ORDER BY leaf_index DESC LIMIT 1`);
    const leaf = JSON.parse(row.leaf);
    const pseudonym = (await call("/api/user/user", {}, { token: u.token })).data.pseudonym;
    expect(leaf).toMatchObject({ ref_type: "user", ref_id: pseudonym, credit: `${pseudonym}:demo`, v: 3 });
    expect(row.leaf).not.toContain(`"${u.id}"`);
  });
});

describe("the sequencer's batch read (decision 168)", () => {
  it("finds its state by two index look-ups and each inbox row's transfer and accounts by primary key, scanning no table", async () => {
    const steps = (await db.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${nextBatchQuery(BATCH_LEAVES)}`)).map((r) => r.detail);
    expect(steps.filter((d) => /SEARCH log_leaves/.test(d)).length).toBeGreaterThanOrEqual(2);
    expect(steps.some((d) => /SEARCH log_queue USING INTEGER PRIMARY KEY \(rowid>\?\)/.test(d))).toBe(true);
    expect(steps.some((d) => /SEARCH t USING INTEGER PRIMARY KEY \(rowid=\?\)/.test(d))).toBe(true);
    expect(steps.some((d) => /SCAN (log_leaves|log_queue|ledger_transfers|ledger_accounts|t|d|c)\b/.test(d))).toBe(false);
  });
});
