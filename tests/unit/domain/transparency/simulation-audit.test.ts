/**
 * The simulated feed's committed walk and its audit from the whole log (decision 102): the walk
 * is exact integer arithmetic that chains across hours, and auditSimulation accepts an honest
 * log and names what is wrong in a dishonest one: a seed that is not the committed one, a tick
 * that is not the walk's, an order placed before its hour was committed, a broken chain.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commitLeaf, hourEnd, revealLeaf, simParams, type Epoch } from "../../../../durable-objects/quotes/sim-epochs";
import { formatPriceE8 } from "../../../../worker/domain/money/units";
import { auditSimulation, canonicalJson, priceE8 } from "../../../../worker/domain/transparency/verify";
import { simPrices, simStep } from "../../../../worker/domain/quotes/sim-walk";

const SYMBOL = "BTC/USDT";
const H0 = 1_800_000_000 - (1_800_000_000 % 3600);
const seedOf = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (n * 31 + i * 7) & 0xff);
const params = simParams(1_000_000);

function epoch(from_s: number, seed: Uint8Array, prev: number | null, start_e8: number | null): Epoch {
  return { symbol: SYMBOL, from_s, to_s: hourEnd(from_s), seed, start_e8, prev_from_s: prev, params, committed_at_ms: from_s * 1000 - 60_000 };
}

/** An order leaf with the given entry and exit seconds, priced by `price(second)`. */
function orderLeaf(id: number, entry_s: number, exit_s: number, price: (s: number) => bigint, feed = "simulation") {
  const at = (s: number, role: string) => ({ price: formatPriceE8(Number(price(s))), role, ts: s * 1000 });
  return canonicalJson({
    kind: "order",
    v: 2,
    id,
    symbol: SYMBOL,
    feed,
    entry: { price: formatPriceE8(Number(price(entry_s))), ts: entry_s * 1000 },
    exit: { price: formatPriceE8(Number(price(exit_s))), ts: exit_s * 1000 },
    ticks: [at(entry_s - 1, "context"), at(entry_s, "entry"), at(exit_s, "settlement"), at(exit_s + 1, "context")],
  });
}
const stake = (id: number) => canonicalJson({ kind: "transfer", v: 2, id: 1000 + id, code: "trade_stake", ref_type: "order", ref_id: String(id) });

/** Two committed hours: the first from 40 minutes past, the second chained to it; one order in each. */
function honestLog() {
  const a = epoch(H0 + 1200, seedOf(1), null, 64_250_00_000_000);
  const b = epoch(hourEnd(H0), seedOf(2), a.from_s, null);
  const pa = simPrices(a.seed, SYMBOL, a.from_s, a.to_s, BigInt(a.start_e8!), params);
  const pb = simPrices(b.seed, SYMBOL, b.from_s, b.to_s, pa[pa.length - 1], params);
  const price = (s: number) => (s < a.to_s ? pa[s - a.from_s] : pb[s - b.from_s]);
  const leaves = [commitLeaf(a), commitLeaf(b), stake(1), stake(2), orderLeaf(1, a.from_s + 100, a.from_s + 160, price), orderLeaf(2, a.to_s - 30, a.to_s + 30, price), revealLeaf(a), revealLeaf(b)];
  return { a, b, pa, pb, price, leaves };
}
const failures = (leaves: string[]) => auditSimulation(leaves, (H0 + 3 * 3600) * 1000).filter((f) => !f.ok).map((f) => f.line);

describe("the committed walk", () => {
  it("is the same run in one piece or hour by hour, on the tick grid and above the floor", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.integer({ min: 1, max: 500 }), fc.integer({ min: 1, max: 10_000_000 }), (seed, cut, start) => {
        const start_e8 = BigInt(start) * 1_000_000n;
        const whole = simPrices(seed, SYMBOL, 0, 600, start_e8, params);
        const first = simPrices(seed, SYMBOL, 0, cut, start_e8, params);
        const rest = simPrices(seed, SYMBOL, cut, 600, first[first.length - 1], params);
        expect([...first, ...rest]).toEqual(whole);
        for (const p of whole) expect(p % params.tick_e8 === 0n && p >= params.floor_e8).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it("moves about as much as the committed volatility says, and another seed walks elsewhere", () => {
    const p = simPrices(seedOf(9), SYMBOL, 0, 3600, 64_250_00_000_000n, params);
    const moves = p.slice(1).map((x, i) => Number(x - p[i]) / Number(p[i]));
    const sd = Math.sqrt(moves.reduce((s, m) => s + m * m, 0) / moves.length);
    // 100 ppm a second with 2 % of seconds four times as big: about 1.3e-4.
    expect(sd).toBeGreaterThan(0.8e-4);
    expect(sd).toBeLessThan(2e-4);
    expect(simPrices(seedOf(10), SYMBOL, 0, 3600, 64_250_00_000_000n, params)).not.toEqual(p);
    expect(simStep(seedOf(9), SYMBOL, 5, 1_000_000n, params).volume_e8).toBeGreaterThanOrEqual(5_000_000);
  });

  it("reads prices as the leaves write them", () => {
    expect(priceE8("64250.5")).toBe(6_425_050_000_000n);
    expect(priceE8("0.00000001")).toBe(1n);
    for (const bad of ["-1", "1e3", "01.5", "1.123456789", " 1", ""]) expect(priceE8(bad)).toBeNull();
  });
});

describe("auditSimulation", () => {
  it("accepts an honest log: both hours recomputed, both orders' ticks the walk's", () => {
    const { leaves } = honestLog();
    const all = auditSimulation(leaves, (H0 + 3 * 3600) * 1000);
    expect(all.filter((f) => !f.ok)).toEqual([]);
    expect(all.map((f) => f.line).join("\n")).toMatch(/2 simulated orders: every tick is the committed walk's/);
  });

  it("a seed that is not the committed one fails its hour and leaves its orders unchecked", () => {
    const { a, leaves } = honestLog();
    const forged = leaves.map((l) => (l === revealLeaf(a) ? revealLeaf({ ...a, seed: seedOf(77) }) : l));
    expect(failures(forged).join("\n")).toMatch(/does not hash to its commitment/);
  });

  it("a rewritten tick fails with the order and the walk's price", () => {
    const { a, price, leaves } = honestLog();
    const lie = (s: number) => (s === a.from_s + 160 ? price(s) + 1_000_000n : price(s));
    const forged = leaves.map((l) => (l.includes('"id":1,') && l.includes('"kind":"order"') ? orderLeaf(1, a.from_s + 100, a.from_s + 160, lie) : l));
    expect(failures(forged)).toEqual([expect.stringMatching(/^order 1 .*the walk says/)]);
  });

  it("an order placed before its hour was committed fails", () => {
    const { leaves } = honestLog();
    const early = [leaves[2], ...leaves.filter((_, i) => i !== 2)];
    expect(failures(early)).toEqual([expect.stringMatching(/^order 1: placed \(leaf 0\) before its hour was committed/)]);
  });

  it("an hour that names no hour before it, or a start of its own after the first, breaks the chain", () => {
    const { a, b, leaves } = honestLog();
    const orphan = leaves.map((l) => (l === commitLeaf(b) ? commitLeaf({ ...b, prev_from_s: a.from_s - 3600 }) : l));
    expect(failures(orphan).join("\n")).toMatch(/does not start from a price the log fixes/);
    // A tick outside every committed hour, once commitments began, is not the walk's.
    const outside = [...leaves, orderLeaf(3, b.to_s + 10, b.to_s + 20, () => 1_000_000n)];
    expect(failures(outside).join("\n")).toMatch(/order 3 .*in no committed hour/);
  });

  it("an hour not yet revealed waits; an exchange-fed order is not the walk's business", () => {
    const { b, leaves } = honestLog();
    const running = leaves.filter((l) => l !== revealLeaf(b));
    const lines = auditSimulation(running, (H0 + 3600 + 60) * 1000);
    expect(lines.filter((f) => !f.ok)).toEqual([]);
    expect(lines.map((f) => f.line).join("\n")).toMatch(/seed not revealed yet \(the hour is not over\)[\s\S]*1 wait for their hour's seed/);
    const upstream = [...leaves, orderLeaf(4, b.to_s + 10, b.to_s + 20, () => 1_000_000n, "binance:BTCUSDT")];
    expect(failures(upstream)).toEqual([]);
  });
});
