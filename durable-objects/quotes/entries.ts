/**
 * An order's entry is the first tick after it was accepted (decision 123): written open with no
 * entry, the hub stores its entry at the next beat, once that tick exists, for all the orders
 * waiting then in one statement. A hub that restarts has forgotten its waiting orders: it reads
 * them back once (`recover`), and settlement finds any entry it never stored in the ticks.
 */
import type { Db } from "../../worker/db/client";
import { ordersAwaitingEntry, writeEntries } from "../../worker/domain/trades/entry-writes";
import type { Tick } from "../../worker/domain/trades/settlement";
import { MAX_ENTRY_WAIT_MS } from "../../worker/domain/trades/settlement";

export type Waiting = { id: number; user_id: number; accepted_at_ms: number };
export type Entry = { id: number; tick: Tick };

export type EntryDeps = {
  /** The first stored tick after `after_ms`, at or before `until_ms`. */
  firstTickAfter(after_ms: number, until_ms: number): Tick | null;
  /** Stores entries (one statement); the orders no longer open or already entered are left alone. */
  write(entries: readonly Entry[]): Promise<void>;
  /** The symbol's open orders without an entry (after a restart). */
  waiting(): Promise<Waiting[]>;
};

/**
 * The entries in D1, the ticks in the hub's store; `db` gives a fresh counted view per use, and
 * `symbol` is the hub's (none before its first `ensure`: nothing waits then).
 */
export function d1Entries(db: () => Db, symbol: () => string | null, firstTickAfter: EntryDeps["firstTickAfter"]): EntryDeps {
  return {
    firstTickAfter,
    write: (entries) => writeEntries(db(), entries),
    waiting: () => {
      const s = symbol();
      return s ? ordersAwaitingEntry(db(), s) : Promise.resolve([]);
    },
  };
}

export class PendingEntries {
  private readonly waiting = new Map<number, Waiting>();
  private recovered = false;

  constructor(private readonly deps: EntryDeps) {}

  add(orders: readonly Waiting[]) {
    for (const o of orders) this.waiting.set(o.id, o);
  }

  get size(): number {
    return this.waiting.size;
  }

  /**
   * Stores the entries whose tick has come. An order whose wait passed without a tick is dropped:
   * settlement voids it (no entry tick), refunding stake and fee.
   */
  async flush(now_ms: number): Promise<number> {
    if (!this.recovered) {
      this.recovered = true;
      this.add(await this.deps.waiting());
    }
    const due: Entry[] = [];
    for (const w of this.waiting.values()) {
      const tick = this.deps.firstTickAfter(w.accepted_at_ms, w.accepted_at_ms + MAX_ENTRY_WAIT_MS);
      if (tick) due.push({ id: w.id, tick });
      else if (now_ms > w.accepted_at_ms + MAX_ENTRY_WAIT_MS) this.waiting.delete(w.id);
    }
    if (due.length === 0) return 0;
    await this.deps.write(due);
    for (const e of due) this.waiting.delete(e.id);
    // No message to the owners: a page showing an order without its entry asks again (order-lists.tsx).
    return due.length;
  }
}
