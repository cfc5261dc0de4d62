/**
 * The market's exposure over time, in the hub's own storage: a snapshot whenever it changed,
 * and one at least every 10 s, kept a day (the console draws it).
 */
import { worstCase, type Exposure } from "../../worker/domain/trades/exposure";
import { DAY_MS } from "./candles";
import type { ExposureSnapshot } from "./hub-api";
import type { Sql } from "./sql";

const EXPOSURE_EVERY_MS = 10_000;
const EXPOSURE_RETENTION_MS = DAY_MS;

type Snap = { ts_ms: number; up: number; down: number; worst: number };

export class ExposureLog {
  private last: Snap | null = null;

  constructor(private readonly sql: Sql) {}

  init() {
    this.sql.exec("CREATE TABLE IF NOT EXISTS exposure_history (ts_ms INTEGER PRIMARY KEY, up_payout_micro INTEGER NOT NULL, down_payout_micro INTEGER NOT NULL, worst_case_micro INTEGER NOT NULL)");
  }

  /** A snapshot of `e` when it differs from the last one, or when that is 10 s old. */
  record(now: number, e: Exposure) {
    const snap = { ts_ms: now, up: e.up.payout_micro, down: e.down.payout_micro, worst: worstCase(e) };
    this.last ??= this.sql.exec<Snap>("SELECT ts_ms, up_payout_micro AS up, down_payout_micro AS down, worst_case_micro AS worst FROM exposure_history ORDER BY ts_ms DESC LIMIT 1").toArray()[0] ?? null;
    const last = this.last;
    if (last && now - last.ts_ms < EXPOSURE_EVERY_MS && last.up === snap.up && last.down === snap.down && last.worst === snap.worst) return;
    this.sql.exec("INSERT OR REPLACE INTO exposure_history (ts_ms, up_payout_micro, down_payout_micro, worst_case_micro) VALUES (?, ?, ?, ?)", now, snap.up, snap.down, snap.worst);
    this.last = snap;
  }

  /** The snapshots since `since_ms`, oldest first. */
  since(since_ms: number): ExposureSnapshot[] {
    return this.sql.exec<ExposureSnapshot>("SELECT ts_ms, up_payout_micro, down_payout_micro, worst_case_micro FROM exposure_history WHERE ts_ms >= ? ORDER BY ts_ms", since_ms).toArray();
  }

  prune(now: number) {
    this.sql.exec("DELETE FROM exposure_history WHERE ts_ms < ?", now - EXPOSURE_RETENTION_MS);
  }
}
