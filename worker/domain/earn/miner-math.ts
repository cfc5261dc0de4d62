/**
 * The cloud miner's arithmetic, integers only: a machine pays a fixed daily output for each
 * completed day of its cycle (day n at purchase + n × 24 h) and then ends.
 */
import { completedDays, dayDueAt, DAY_MS } from "./pool-math";

export type MinerTerms = { price_micro: number; days: number; daily_output_micro: number };

export function minerTotalOutput(t: MinerTerms): number {
  return t.daily_output_micro * t.days;
}

export function minerEndsAt(started_at_ms: number, days: number): number {
  return started_at_ms + days * DAY_MS;
}

/** Output credited so far after `completed` days (never beyond the cycle). */
export function minerOutputSoFar(t: MinerTerms, completed: number): number {
  return t.daily_output_micro * Math.max(0, Math.min(t.days, completed));
}

export { completedDays, dayDueAt };
