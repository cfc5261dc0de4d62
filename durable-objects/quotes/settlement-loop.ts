/**
 * The settlement of a symbol's due orders from the hub's own ticks. Alarms are at-least-once;
 * settlement is exactly-once through the D1 transition guard (see writeSettlements).
 */
import type { Db } from "../../worker/db/client";
import { decide, dueOrders, writeSettlements, type DueOrder, type Settlement } from "../../worker/domain/trades/settlement-writes";
import type { Order } from "../../worker/domain/trades/orders";
import type { Tick } from "../../worker/domain/trades/settlement";
import type { Outcome } from "./notify";

/** A delivery is settled once a tick at or after it exists, or this long after it regardless. */
const SETTLE_WAIT_MS = 5_000;
/** Due orders settled per database batch (five set-based statements, whatever the count). */
export const SETTLE_CHUNK = 500;
/**
 * Due orders settled per alarm (or sweep call) at most; more due re-arms the alarm at once.
 * A chunk costs at most 1 read + 3 tries of (5 statements + 1 read of what is still open) =
 * 19 queries, so 20 chunks stay within 380 of D1's 1,000 per invocation. Not fewer: a re-armed
 * alarm starts a few hundred ms later (measured locally), which at 1,000 an alarm was most of
 * a 100,000-order burst's time; between chunks the loop keeps the beat and yields (decision 149).
 */
export const SETTLE_PER_INVOCATION = 20 * SETTLE_CHUNK;
/** The ticks read around a batch's entries and deliveries (for the audit's context ticks). */
const TICKS_BEFORE_MS = 15_000;
const TICKS_AFTER_MS = 5_000;

/** Where due orders are read and settlements written (D1 in the hub; a fake in tests). */
export type DueOrders = {
  due(symbol: string, horizon_ms: number, limit: number): Promise<DueOrder[]>;
  write(items: Settlement[], now_ms: number, onSettled: (written: readonly Settlement[]) => void): Promise<{ settled: number; already: number }>;
};

export function d1DueOrders(db: Db): DueOrders {
  return {
    due: (symbol, horizon_ms, limit) => dueOrders(db, symbol, horizon_ms, limit),
    write: (items, now_ms, onSettled) => writeSettlements(db, items, now_ms, { chunk: SETTLE_CHUNK, onSettled }),
  };
}

export type SettlementDeps = {
  /** The hub's ticks (TickStore). */
  ticks: { ticks(from_ms: number, to_ms: number): Tick[]; latest(): Tick | null };
  /** The hub's open exposure (OrderIntake): a settlement write counts as an order write, and settled orders leave it. */
  exposure: { track<T>(write: () => Promise<T>): Promise<T>; release(settled: readonly DueOrder[]): void };
  notify(user_id: number, outcomes: Outcome[]): Promise<unknown>;
  /** Between batches: the tick of a second that passed. */
  keepBeat(): void;
  /** A full chunk was due at once: a burst, which the transparency log gives way to (hold.ts). */
  onBurst?(): void;
};

/** `oldest_delivery_at_ms`: the earliest delivery among the due orders taken (null: none were due), for the settlement lag. */
export type SettleRun = { settled: number; already: number; more: boolean; oldest_delivery_at_ms: number | null };

/**
 * Settles up to SETTLE_PER_INVOCATION of the symbol's due orders, 500 per database batch, and
 * tells their owners; `more` says whether more are due (the caller re-arms the alarm at once,
 * so a burst settles over several short invocations, each within D1's query limit). Between
 * batches it keeps the beat and gives way to other requests, so a burst never freezes the rest
 * of the app.
 */
export async function settleDue(deps: SettlementDeps, orders: DueOrders, symbol: string, now: number): Promise<SettleRun> {
  const horizon = Math.max(deps.ticks.latest()?.ts_ms ?? 0, now - SETTLE_WAIT_MS);
  let total = { settled: 0, already: 0 };
  const notices = new Notices(deps.notify);
  let more = false;
  let oldest: number | null = null;
  for (let taken = 0; ; ) {
    const due = await orders.due(symbol, horizon, SETTLE_CHUNK);
    if (due.length === 0) break;
    if (taken === 0 && due.length === SETTLE_CHUNK) deps.onBurst?.();
    taken += due.length;
    for (const o of due) if (oldest === null || o.delivery_at_ms < oldest) oldest = o.delivery_at_ms;
    const r = await writeDue(deps, orders, due, now);
    total = { settled: total.settled + r.settled, already: total.already + r.already };
    notices.add(r.decided);
    if (due.length < SETTLE_CHUNK) break;
    // The last user's orders may go on in the next batch: their notice waits for it.
    notices.sendAllBut(due[due.length - 1].user_id);
    if (taken >= SETTLE_PER_INVOCATION) {
      // The rest goes to the next invocation; the last user hears now what is settled (and
      // again when the rest is), rather than risk hearing nothing if none of theirs is left.
      more = true;
      break;
    }
    deps.keepBeat();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  await notices.sendAll();
  return { ...total, more, oldest_delivery_at_ms: oldest };
}

/** Decides a batch of due orders from the ticks and writes it; the exposure drops by what was written. */
async function writeDue(deps: SettlementDeps, orders: DueOrders, due: DueOrder[], now: number) {
  let from = Infinity;
  let to = -Infinity;
  for (const o of due) {
    // From before acceptance: its entry is the first tick after it (and the audit shows the ticks around).
    from = Math.min(from, o.created_at_ms);
    to = Math.max(to, o.delivery_at_ms);
  }
  const ticks = deps.ticks.ticks(from - TICKS_BEFORE_MS, to + TICKS_AFTER_MS);
  const decided = due.map((o) => decide(o, ticks));
  const r = await deps.exposure.track(() => orders.write(decided, now, (written) => deps.exposure.release(written.map((s) => s.order))));
  return { ...r, decided: decided.map((s) => ({ id: s.order.id, user_id: s.order.user_id, status: s.outcome.status })) };
}

/**
 * A user's outcomes wait until none of theirs can be in the next batch (batches keep each
 * user's orders together): one notice per user, as soon as all of theirs are settled.
 */
class Notices {
  private waiting = new Map<number, Outcome[]>();
  private readonly sent: Promise<unknown>[] = [];

  constructor(private readonly notify: SettlementDeps["notify"]) {}

  add(decided: readonly { id: number; user_id: number; status: Order["status"] }[]) {
    for (const o of decided) {
      const list = this.waiting.get(o.user_id) ?? [];
      list.push({ order_id: o.id, status: o.status });
      this.waiting.set(o.user_id, list);
    }
  }

  /** Tells every waiting user but `kept`, whose outcomes go on waiting. */
  sendAllBut(kept: number) {
    const carried = this.waiting.get(kept);
    this.waiting.delete(kept);
    this.tell();
    this.waiting = carried ? new Map([[kept, carried]]) : new Map();
  }

  async sendAll() {
    this.tell();
    this.waiting = new Map();
    await Promise.all(this.sent);
  }

  private tell() {
    for (const [user_id, outcomes] of this.waiting) this.sent.push(this.notify(user_id, outcomes).catch(() => undefined));
  }
}
