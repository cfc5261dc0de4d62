/**
 * When this Worker isolate started serving: the time of the first request that asked. (At a
 * Worker's global scope the clock reads the epoch, so it cannot be taken at module load.)
 * Readiness uses it to tell a fresh deployment, whose first cron run is still up to a minute
 * away, from one whose cron stopped (decision 130).
 */
let started_ms: number | null = null;

export function isolateStartedMs(now_ms = Date.now()): number {
  started_ms ??= now_ms;
  return started_ms;
}
