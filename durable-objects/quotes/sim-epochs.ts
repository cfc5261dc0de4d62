/**
 * The simulated feed's hours (decision 102). Each hour of a simulated market has its own fresh
 * random seed; the walk of every second of the hour follows from the seed alone (simStep in
 * worker/domain/transparency/verify.ts). Before an hour starts, a `sim_commit` leaf with the
 * seed's SHA-256 and the walk's parameters goes to the transparency log; after it ends, a
 * `sim_reveal` leaf with the seed. Anyone can then recompute the hour's ticks and see that they
 * were fixed before any order of the hour was placed.
 *
 * An epoch is one such hour: it runs to the next whole hour, and starts at the whole hour, or
 * later when the hub was not running at the hour (a first start, a restart after a gap). Its
 * walk starts from the previous epoch's last price; only the very first epoch names a start.
 *
 * The seeds live here, in the hub's own storage, and nowhere else until they are revealed.
 */
import { canonicalJson, fromHex, hex, sha256Hex } from "../../worker/domain/transparency/verify";
import { SIM_WALK, type SimParams } from "../../worker/domain/quotes/sim-walk";
import { formatPriceE8 } from "../../worker/domain/money/units";
import type { Sql } from "./sql";

export const HOUR_S = 3600;
/** Per-second volatility in parts per million: 100 ppm is about 3 % a day, about what BTC does. */
export const SIM_SIGMA_PPM = 100;

export type Epoch = {
  symbol: string;
  from_s: number;
  to_s: number;
  seed: Uint8Array;
  /** The price before `from_s`: named only by the first epoch, otherwise the previous epoch's last. */
  start_e8: number | null;
  prev_from_s: number | null;
  params: SimParams;
  committed_at_ms: number;
};

/** A row the log's inbox (D1 `log_queue`) must hold. */
export type SimLogRow = { kind: "sim_commit" | "sim_reveal"; ref_id: string; payload: string; created_at_ms: number; from_s: number };

type Row = { symbol: string; from_s: number; to_s: number; seed: string; start_e8: number | null; prev_from_s: number | null; sigma_ppm: number; tick_e8: number; floor_e8: number; committed_at_ms: number; commit_logged: number; reveal_logged: number };

/** The end of the hour that holds second `s`. */
export const hourEnd = (s: number) => (Math.floor(s / HOUR_S) + 1) * HOUR_S;

export function simParams(tick_size_e8: number): SimParams {
  return { sigma_ppm: SIM_SIGMA_PPM, tick_e8: BigInt(tick_size_e8), floor_e8: BigInt(tick_size_e8) };
}

export class SimEpochs {
  /**
   * The second before which `unlogged` has nothing to say, or null when storage must be asked.
   * Every order asks first (its hour's commitment must be queued ahead of it): with this kept in
   * memory, that costs no storage read except once after each change.
   */
  private quiet_until_s: number | null = null;

  constructor(private readonly sql: Sql) {}

  init() {
    this.sql.exec(`CREATE TABLE IF NOT EXISTS sim_epochs (
      from_s INTEGER PRIMARY KEY, symbol TEXT NOT NULL, to_s INTEGER NOT NULL, seed TEXT NOT NULL,
      start_e8 INTEGER, prev_from_s INTEGER, sigma_ppm INTEGER NOT NULL, tick_e8 INTEGER NOT NULL, floor_e8 INTEGER NOT NULL,
      committed_at_ms INTEGER NOT NULL, commit_logged INTEGER NOT NULL DEFAULT 0, reveal_logged INTEGER NOT NULL DEFAULT 0)`);
  }

  /** The epoch that holds second `s`, if any. */
  at(s: number): Epoch | null {
    const r = this.sql.exec<Row>("SELECT * FROM sim_epochs WHERE from_s <= ? AND to_s > ? ORDER BY from_s DESC LIMIT 1", s, s).toArray()[0];
    return r ? epochOf(r) : null;
  }

  last(): Epoch | null {
    const r = this.sql.exec<Row>("SELECT * FROM sim_epochs ORDER BY from_s DESC LIMIT 1").toArray()[0];
    return r ? epochOf(r) : null;
  }

  add(e: Epoch) {
    this.quiet_until_s = null;
    this.sql.exec(
      "INSERT INTO sim_epochs (from_s, symbol, to_s, seed, start_e8, prev_from_s, sigma_ppm, tick_e8, floor_e8, committed_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      e.from_s, e.symbol, e.to_s, hex(e.seed), e.start_e8, e.prev_from_s, e.params.sigma_ppm, Number(e.params.tick_e8), Number(e.params.floor_e8), e.committed_at_ms,
    );
  }

  /**
   * What the log's inbox still needs: every commitment not yet written there, and the seed of
   * every epoch that is over (the walk never produces a tick of a past second, so once the
   * clock is past `to_s` nothing of the epoch can change).
   */
  unlogged(now_ms: number): SimLogRow[] {
    const now_s = Math.floor(now_ms / 1000);
    if (this.quiet_until_s !== null && now_s < this.quiet_until_s) return [];
    const rows = this.sql.exec<Row>("SELECT * FROM sim_epochs WHERE commit_logged = 0 OR (reveal_logged = 0 AND to_s <= ?) ORDER BY from_s", now_s).toArray();
    // Nothing now: nothing until the next unrevealed hour ends, unless an epoch is added first.
    if (rows.length === 0) this.quiet_until_s = this.sql.exec<{ s: number | null }>("SELECT min(to_s) AS s FROM sim_epochs WHERE reveal_logged = 0").one().s ?? Number.POSITIVE_INFINITY;
    const out: SimLogRow[] = [];
    for (const r of rows) {
      const e = epochOf(r);
      if (!r.commit_logged) out.push({ kind: "sim_commit", ref_id: refOf(e), payload: commitLeaf(e), created_at_ms: e.committed_at_ms, from_s: e.from_s });
      if (!r.reveal_logged && r.to_s <= now_s) out.push({ kind: "sim_reveal", ref_id: refOf(e), payload: revealLeaf(e), created_at_ms: now_ms, from_s: e.from_s });
    }
    return out;
  }

  /** Marks rows written to the log's inbox. */
  logged(rows: SimLogRow[]) {
    this.quiet_until_s = null;
    for (const r of rows) this.sql.exec(`UPDATE sim_epochs SET ${r.kind === "sim_commit" ? "commit_logged" : "reveal_logged"} = 1 WHERE from_s = ?`, r.from_s);
  }

  /** Epochs revealed more than `keep_ms` ago are only history: the log holds them. */
  prune(now_ms: number, keep_ms: number) {
    this.sql.exec("DELETE FROM sim_epochs WHERE commit_logged = 1 AND reveal_logged = 1 AND to_s < ?", Math.floor((now_ms - keep_ms) / 1000));
  }
}

function epochOf(r: Row): Epoch {
  const seed = fromHex(r.seed);
  if (!seed) throw new Error(`sim_epochs ${r.from_s}: a seed that is not hex`);
  return {
    symbol: r.symbol,
    from_s: r.from_s,
    to_s: r.to_s,
    seed,
    start_e8: r.start_e8,
    prev_from_s: r.prev_from_s,
    params: { sigma_ppm: r.sigma_ppm, tick_e8: BigInt(r.tick_e8), floor_e8: BigInt(r.floor_e8) },
    committed_at_ms: r.committed_at_ms,
  };
}

const refOf = (e: Epoch) => `${e.symbol}@${e.from_s * 1000}`;

/** The commitment: everything about the hour's walk except the seed. */
export function commitLeaf(e: Epoch): string {
  return canonicalJson({
    kind: "sim_commit",
    v: 1,
    symbol: e.symbol,
    from_ms: e.from_s * 1000,
    to_ms: e.to_s * 1000,
    walk: SIM_WALK,
    seed_sha256: sha256Hex(e.seed),
    sigma_ppm: e.params.sigma_ppm,
    tick: formatPriceE8(Number(e.params.tick_e8)),
    floor: formatPriceE8(Number(e.params.floor_e8)),
    start: e.start_e8 === null ? null : formatPriceE8(e.start_e8),
    after_ms: e.prev_from_s === null ? null : e.prev_from_s * 1000,
    committed_at_ms: e.committed_at_ms,
  });
}

export function revealLeaf(e: Epoch): string {
  return canonicalJson({ kind: "sim_reveal", v: 1, symbol: e.symbol, from_ms: e.from_s * 1000, seed: hex(e.seed) });
}
