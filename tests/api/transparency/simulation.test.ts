/**
 * The simulated feed's commitments inside workerd (decision 102): the hub that prices an order
 * has queued its hour's commitment (and the next hour's) in the log's inbox before the order's
 * stake transfer; the order's entry is the committed walk's price of its second; and the log,
 * read whole from its public tiles, passes the verifier's audit once the seed is revealed.
 */
import { eq, sql } from "drizzle-orm";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SimEpochs, revealLeaf } from "../../../durable-objects/quotes/sim-epochs";
import { orders } from "../../../worker/db/schema";
import { decide, writeSettlements } from "../../../worker/domain/trades/settlement-writes";
import { auditSimulation, decodeEntryBundle, entriesPath, sha256Hex, TILE_WIDTH } from "../../../worker/domain/transparency/verify";
import { simPrices } from "../../../worker/domain/quotes/sim-walk";
import { hubStub } from "../../../worker/quotes";
import { logSequencer } from "../../../durable-objects/transparency/log-api";
import { call, db, page, testEnv } from "../helpers";
import { entered, market, price, user, USDT } from "../trades/market-helpers";

type Row = { seq: number; kind: string; ref_id: string; payload: string | null };

describe("the simulation's hourly seeds", () => {
  it("an order is priced by a committed hour: commitment queued first, entry the walk's, audit clean", async () => {
    const u = await user(100);
    const m = await market({ durations: [{ seconds: 60, profit_rate_bp: 8500, min_stake_micro: USDT, max_stake_micro: 100 * USDT }] });
    const placed = await call("/api/order/addorder", { product_id: m.id, direction: "up", amount: "5", seconds: 60, quote_price: await price(m.id) }, { token: u.token });
    expect(placed.code, placed.msg).toBe(1);
    // Its entry is the walk's first tick after acceptance, stored at the hub's next beat.
    const order = await entered(placed.data.id);
    expect(order.entry_tick_ts_ms).toBeGreaterThan(order.created_at_ms);
    expect(order.feed).toBe("simulation");
    expect(order.entry_tick_ts_ms % 1000).toBe(0);

    // The inbox: this hour's and the next hour's commitments, both ahead of the stake.
    const rows = await db.all<Row>(sql`SELECT seq, kind, ref_id, payload FROM log_queue WHERE (kind = 'sim_commit' AND ref_id LIKE ${`${m.symbol}@%`}) OR (kind = 'transfer' AND ref_id IN (SELECT CAST(id AS TEXT) FROM ledger_transfers WHERE code = 'trade_stake' AND ref_id = ${String(order.id)})) ORDER BY seq`);
    expect(rows.map((r) => r.kind)).toEqual(["sim_commit", "sim_commit", "transfer"]);
    const commit = JSON.parse(rows[0].payload!);
    expect(commit.from_ms).toBeLessThanOrEqual(order.entry_tick_ts_ms);
    expect(commit.to_ms).toBeGreaterThan(order.entry_tick_ts_ms);
    expect(JSON.parse(rows[1].payload!)).toMatchObject({ from_ms: commit.to_ms, after_ms: commit.from_ms, start: null });

    // The seed is still only in the hub; read it there as the reveal will publish it.
    const hub = hubStub(testEnv, m.symbol);
    const epoch = await runInDurableObject(hub, (_o, state) => new SimEpochs(state.storage.sql).at(order.entry_tick_ts_ms / 1000)!);
    expect(sha256Hex(epoch.seed)).toBe(commit.seed_sha256);
    const walk = simPrices(epoch.seed, m.symbol, epoch.from_s, order.entry_tick_ts_ms / 1000 + 1, BigInt(epoch.start_e8!), epoch.params);
    expect(order.entry_price_e8).toBe(Number(walk[walk.length - 1]));

    // Settle it on the hub's own ticks, sequence the log, and audit it whole as `npm run verify` does.
    const ticks = await hub.ticks(order.entry_tick_ts_ms - 5_000, order.delivery_at_ms);
    expect((await writeSettlements(db, [decide(order, ticks)], order.delivery_at_ms + 1)).settled).toBe(1);
    const size = await logSequencer(testEnv).drain();
    const leaves: string[] = [];
    for (let i = 0; i * TILE_WIDTH < size; i += 1) {
      const width = Math.min(TILE_WIDTH, size - i * TILE_WIDTH);
      const r = await page(`/api/proof/${entriesPath(i, width)}`);
      leaves.push(...decodeEntryBundle(new Uint8Array(await r.arrayBuffer())).map((e) => new TextDecoder().decode(e)));
    }
    expect(leaves.length).toBe(size);
    const revealed = [...leaves, revealLeaf(epoch)];
    const audit = auditSimulation(revealed, commit.to_ms + 1);
    expect(audit.filter((f) => !f.ok)).toEqual([]);
    expect(audit.some((f) => /[1-9]\d* simulated orders: every tick is the committed walk's/.test(f.line))).toBe(true);
    // The same log with the order's entry price rewritten fails the audit.
    const forged = revealed.map((l) => (l.includes(`"kind":"order"`) && l.includes(`"id":${order.id},`) ? l.replaceAll(`"ts":${order.entry_tick_ts_ms}`, `"ts":${order.entry_tick_ts_ms + 1}`) : l));
    expect(auditSimulation(forged, commit.to_ms + 1).some((f) => !f.ok)).toBe(true);
  });
});
