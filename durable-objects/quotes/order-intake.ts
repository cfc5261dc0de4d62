/**
 * Order placement for one symbol: each order is checked against the product's current rules,
 * the latest tick and the exposure limit, and the accepted ones are written a group per D1
 * batch (group commit). This hub is the only writer of its symbol's orders, so it keeps the
 * open exposure in memory: the written open orders (`committed`, loaded from D1 with the
 * product) plus the accepted orders still in the group commit (`reserved`). An order is
 * checked and reserved with no await in between, so concurrent orders see each other.
 */
import type { Db } from "../../worker/db/client";
import { admits, combine, NO_EXPOSURE, withOrder, worstCase, type Exposure, type ExposureOrder } from "../../worker/domain/trades/exposure";
import { checkOrder, type CheckedOrder, type PlaceOrder, type PlaceResult } from "../../worker/domain/trades/order-check";
import { loadMarket } from "../../worker/domain/trades/market-load";
import { replayOf, writeOrders } from "../../worker/domain/trades/order-writes";
import type { Order } from "../../worker/domain/trades/orders";
import type { ProductWithDurations } from "../../worker/domain/trades/products";
import { freeBalance } from "../../worker/domain/ledger/balances";
import type { Tick } from "../../worker/domain/trades/settlement";
import type { ExposureView } from "./hub-api";
import type { Wallet } from "../../worker/domain/ledger/accounts";

/** The product's rules are re-read at least this often (a console save also reloads them at once). */
const PRODUCT_FRESH_MS = 5_000;
/**
 * At most this many orders in one group-commit batch. The batch is three set statements whatever
 * its size (decision 147); the bound is the worst refused group, each order then written alone
 * (six queries), which stays within D1's 1,000 queries per invocation
 * (tests/api/trades/order-groups.test.ts). The bench's floor groups as many.
 */
export const ORDER_GROUP_MAX = 100;

/** Where the market's product, exposure and orders live (D1 in the hub; a fake in tests). */
export type Market = {
  load(symbol: string): Promise<{ product: ProductWithDurations | null; exposure: Exposure }>;
  write(orders: readonly CheckedOrder[]): Promise<PlaceResult[]>;
  replay(input: PlaceOrder): Promise<PlaceResult | null>;
  /** What the user can stake now (their available, or demo, balance). */
  funds(user_id: number, wallet: Wallet): Promise<number>;
};

/** Users whose balance the hub remembers at most (the least recently used are read again). */
const FUNDS_MAX = 50_000;
/** A balance read this recently that looked short is not read again yet (an empty account's orders cost one read a second). */
const FUNDS_REREAD_MS = 1_000;

/**
 * The market in D1; `db` gives a fresh counted view per use (a group outlives its caller's
 * invocation). `before` runs ahead of every order write (the hub queues its simulation's
 * commitments there), `after` after each (the hub wakes the transparency log: once a group,
 * not once an order).
 */
export function d1Market(db: () => Db, before: () => Promise<void> = async () => undefined, after: () => void = () => undefined): Market {
  return {
    load: (symbol) => loadMarket(db(), symbol),
    write: async (orders) => {
      await before();
      try {
        return await writeOrders(db(), orders);
      } finally {
        after();
      }
    },
    replay: (input) => replayOf(db(), input),
    funds: (user_id, wallet) => freeBalance(db(), user_id, wallet),
  };
}

type Pending = { order: CheckedOrder; done: (r: PlaceResult | Error) => void };

export class OrderIntake {
  private product: { row: ProductWithDurations | null; loaded_at_ms: number } | null = null;
  private productLoading: Promise<ProductWithDurations | null> | null = null;
  private pending: Pending[] = [];
  private writing = false;
  private committed: Exposure | null = null;
  private reserved: Exposure = NO_EXPOSURE;
  /** Order writes in flight, and a count bumped when one starts or ends (see loadProduct). */
  private writesInFlight = 0;
  private writeVersion = 0;
  /**
   * Each user's balance as last known, and what their orders being written will take from it:
   * an order is reserved only while the balance covers it and the user's orders in flight
   * (decision 124), so an empty account cannot hold a market's exposure with orders the
   * database would refuse. Read from D1 only when unknown or short; kept exact by every write.
   */
  private readonly funds = new Map<number, number>();
  private readonly inFlight = new Map<number, number>();
  /** Orders being placed, by user and request key, until answered: what a racing retry waits for. */
  private readonly racing = new Map<string, Promise<void>>();
  private readonly fundsReading = new Map<number, Promise<void>>();
  private readonly fundsReadAt = new Map<number, number>();
  /** For the benches: groups written, the orders in them, and the wall time of their writes. */
  readonly written = { groups: 0, orders: 0, write_ms: 0 };

  /**
   * `feed` names where the hub's ticks come from, written on each order ("simulation" when
   * absent); `wallet` whose money orders stake ("real" when absent); `onWritten` hears each
   * order written (the hub stores its entry at the next tick); `onGroup` each group's size and
   * write time (the hub's `order_group` metric point).
   */
  constructor(private readonly deps: { market: Market; symbol: () => string; now: () => number; feed?: () => string; wallet?: () => Wallet; onWritten?: (orders: readonly Order[]) => void; onGroup?: (orders: number, write_ms: number) => void }) {}

  /** Places an order at the latest tick; orders arriving while a write is in flight join the next batch. */
  async place(input: PlaceOrder, latest: () => Promise<Tick | null>): Promise<PlaceResult> {
    // A retry racing its original (same user, same request key) waits for the original's answer
    // and is then answered as a replay. Otherwise it would see the original's money in flight and
    // be refused for funds, though the order it asks about is being written.
    const key = `${input.user_id}:${input.request_key}`;
    const original = this.racing.get(key);
    if (original) {
      await original;
      const replayed = await this.deps.market.replay(input);
      if (replayed) return replayed;
    }
    let finished!: () => void;
    const mine = new Promise<void>((resolve) => (finished = resolve));
    this.racing.set(key, mine);
    try {
      return await this.placeOnce(input, latest);
    } finally {
      finished();
      if (this.racing.get(key) === mine) this.racing.delete(key);
    }
  }

  private async placeOnce(input: PlaceOrder, latest: () => Promise<Tick | null>): Promise<PlaceResult> {
    const product = await this.currentProduct();
    const now = this.deps.now();
    const checked = checkOrder(product, input, await latest(), now);
    if (checked.status !== "ok") return (await this.deps.market.replay(input)) ?? checked;
    const cost = checked.order.input.stake_micro + checked.order.fee_micro;
    const user = input.user_id;
    await this.knowFunds(user, cost);
    // From here to the reservation nothing awaits: concurrent orders see each other.
    if (!this.covers(user, cost)) return (await this.deps.market.replay(input)) ?? { status: "insufficient_funds" };
    const risk = riskOf(checked.order);
    if (!admits(this.openExposure(), risk, checked.order.product.exposure_limit_micro)) return (await this.deps.market.replay(input)) ?? { status: "exposure_limit" };
    this.reserved = withOrder(this.reserved, risk);
    this.inFlight.set(user, (this.inFlight.get(user) ?? 0) + cost);
    const result = await new Promise<PlaceResult | Error>((done) => {
      this.pending.push({ order: { ...checked.order, feed: this.deps.feed?.() ?? "simulation", wallet: this.wallet() }, done });
      if (!this.writing) void this.writePending();
    });
    this.settleFunds(user, cost, result);
    if (result instanceof Error) throw result;
    return result;
  }

  private wallet(): Wallet {
    return this.deps.wallet?.() ?? "real";
  }

  /**
   * Does the user's balance cover `cost` on top of their orders in flight? Unknown (its read
   * failed) lets the order go to the database, whose CHECK is the final word on funds.
   */
  private covers(user_id: number, cost: number): boolean {
    const funds = this.funds.get(user_id);
    return funds === undefined || funds - (this.inFlight.get(user_id) ?? 0) >= cost;
  }

  /** Reads the user's balance when it is unknown or looks short (a deposit or a win since); one read at a time per user. */
  private async knowFunds(user_id: number, cost: number): Promise<void> {
    if (this.funds.has(user_id) && (this.covers(user_id, cost) || this.deps.now() - (this.fundsReadAt.get(user_id) ?? 0) < FUNDS_REREAD_MS)) return;
    let reading = this.fundsReading.get(user_id);
    if (!reading) {
      reading = this.deps.market.funds(user_id, this.wallet()).then(
        (micro) => {
          this.funds.delete(user_id);
          this.funds.set(user_id, micro);
          this.fundsReadAt.set(user_id, this.deps.now());
          while (this.funds.size > FUNDS_MAX) {
            const oldest = this.funds.keys().next().value!;
            this.funds.delete(oldest);
            this.fundsReadAt.delete(oldest);
          }
        },
        () => undefined,
      );
      this.fundsReading.set(user_id, reading);
      void reading.finally(() => this.fundsReading.delete(user_id));
    }
    await reading;
  }

  /** After the write: the order's cost leaves the flight, and the balance as the write left it. */
  private settleFunds(user_id: number, cost: number, result: PlaceResult | Error) {
    const left = (this.inFlight.get(user_id) ?? 0) - cost;
    if (left > 0) this.inFlight.set(user_id, left);
    else this.inFlight.delete(user_id);
    if (result instanceof Error || result.status === "insufficient_funds") this.funds.delete(user_id);
    else if (result.status === "ok" && !result.replayed && this.funds.has(user_id)) this.funds.set(user_id, this.funds.get(user_id)! - cost);
  }

  /** The written open orders and the ones being written. */
  openExposure(): Exposure {
    return combine(this.committed ?? NO_EXPOSURE, this.reserved);
  }

  /** The open exposure with its worst case, and the product's limit. */
  async view(): Promise<Omit<ExposureView, "history">> {
    const product = await this.currentProduct();
    const e = this.openExposure();
    return { up: e.up, down: e.down, worst_case_micro: worstCase(e), limit_micro: product?.exposure_limit_micro ?? 0 };
  }

  /** Is the written exposure known (loaded from D1 at least once)? */
  get loaded(): boolean {
    return this.committed !== null;
  }

  /** The product's rules (and the exposure with them), from memory while fresh. */
  async currentProduct(): Promise<ProductWithDurations | null> {
    if (this.product && this.deps.now() - this.product.loaded_at_ms < PRODUCT_FRESH_MS) return this.product.row;
    this.productLoading ??= this.loadProduct().finally(() => {
      this.productLoading = null;
    });
    return this.productLoading;
  }

  /** Reads the product again at the next use (a console save, or figures gone wrong). */
  forgetProduct() {
    this.product = null;
  }

  /**
   * Another write of the symbol's orders (settlement): counted like order writes, so a
   * product load that overlaps it does not trust its exposure.
   */
  async track<T>(write: () => Promise<T>): Promise<T> {
    this.writesInFlight++;
    this.writeVersion++;
    try {
      return await write();
    } finally {
      this.writesInFlight--;
      this.writeVersion++;
    }
  }

  /**
   * Takes settled orders off the exposure. Below zero means orders were written behind this
   * hub's back (only tests and benches do that) after it last loaded the exposure: the figures
   * stop at zero and are read again from the database at the next use.
   */
  release(settled: readonly ExposureOrder[]) {
    if (!this.committed) return;
    let e = this.committed;
    for (const o of settled) e = withOrder(e, o, -1);
    const floor = (x: Exposure["up"]) => ({ stake_micro: Math.max(0, x.stake_micro), payout_micro: Math.max(0, x.payout_micro) });
    if (e.up.stake_micro < 0 || e.up.payout_micro < 0 || e.down.stake_micro < 0 || e.down.payout_micro < 0) this.product = null;
    this.committed = { up: floor(e.up), down: floor(e.down) };
  }

  /**
   * The product's rules and the open exposure, in one round trip. A write that started or
   * ended while the query ran may or may not be in its answer, so such an answer replaces the
   * memory (kept exact by every write) only when there is none yet, after a retry or two.
   */
  private async loadProduct(): Promise<ProductWithDurations | null> {
    for (let attempt = 0; ; attempt++) {
      const version = this.writeVersion;
      const quiet = this.writesInFlight === 0;
      const { product, exposure } = await this.deps.market.load(this.deps.symbol());
      this.product = { row: product, loaded_at_ms: this.deps.now() };
      const clean = quiet && this.writesInFlight === 0 && version === this.writeVersion;
      if (clean || (this.committed === null && attempt >= 2)) this.committed = exposure;
      if (clean || this.committed !== null) return product;
    }
  }

  /** Writes the waiting orders, a group per batch, for every caller that joined. */
  private async writePending() {
    this.writing = true;
    try {
      while (this.pending.length > 0) await this.track(() => this.writeGroup(this.pending.splice(0, ORDER_GROUP_MAX)));
    } finally {
      this.writing = false;
    }
  }

  private async writeGroup(group: Pending[]) {
    try {
      const started_ms = this.deps.now();
      const results = await this.deps.market.write(group.map((g) => g.order));
      this.written.groups++;
      this.written.orders += group.length;
      const write_ms = this.deps.now() - started_ms;
      this.written.write_ms += write_ms;
      this.deps.onGroup?.(group.length, write_ms);
      // A group refused for old terms: the product is read again before the next order.
      if (results.some((r) => r.status === "terms_changed")) this.product = null;
      this.deps.onWritten?.(results.flatMap((r) => (r.status === "ok" && !r.replayed ? [r.order] : [])));
      group.forEach((g, i) => {
        const r = results[i];
        this.reserved = withOrder(this.reserved, riskOf(g.order), -1);
        // A replay was counted when it was first written.
        if (r.status === "ok" && !r.replayed && this.committed) this.committed = withOrder(this.committed, riskOf(g.order));
        g.done(r);
      });
    } catch (err) {
      for (const g of group) {
        this.reserved = withOrder(this.reserved, riskOf(g.order), -1);
        g.done(err instanceof Error ? err : new Error(String(err)));
      }
    }
  }
}

/** What an order adds to its side's exposure. */
function riskOf(o: CheckedOrder): ExposureOrder {
  return { direction: o.input.direction, stake_micro: o.input.stake_micro, profit_rate_bp: o.duration.profit_rate_bp };
}
