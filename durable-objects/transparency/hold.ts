/**
 * The log's hold while a market settles a burst (decision 171). The sequencer's appends and a
 * burst's settlement share one database (and, locally, one thread): a quote hub that finds a
 * full chunk of due orders asks the log to hold its appends, and releases it when the burst is
 * settled. The log only ever waits, never drops or reorders a record, and it waits a bounded time:
 *
 * - a hold asked now lasts HOLD_ASK_MS unless asked again;
 * - one episode of holds lasts at most HOLD_MAX_MS from its first ask, however often it is asked;
 * - after an episode ends, the log appends for at least HOLD_REST_MS before a new one can start.
 *
 * So a market that is always busy gets at most HOLD_MAX_MS of every HOLD_MAX_MS + HOLD_REST_MS,
 * and no record waits more than one episode beyond its usual lag. The state is the sequencer's
 * memory only: an object that restarts has forgotten its hold and appends, the safe direction.
 */

/** A hold asked now lasts this long unless asked again (a hub asks at each settlement invocation of a burst). */
export const HOLD_ASK_MS = 3_000;
/** One episode of holds lasts at most this long from its first ask. */
export const HOLD_MAX_MS = 12_000;
/** After an episode, the log appends at least this long before a new one can start. */
export const HOLD_REST_MS = 12_000;

/** `started_ms` null: not held. `ended_ms`: when the last episode ended (its rest counts from there). */
export type LogHold = { readonly started_ms: number | null; readonly until_ms: number; readonly ended_ms: number };

export const NO_HOLD: LogHold = { started_ms: null, until_ms: 0, ended_ms: -Infinity };

/** The hold as it stands at `now_ms`: an episode whose time ran out has ended at its `until_ms`. */
function settled(h: LogHold, now_ms: number): LogHold {
  if (h.started_ms !== null && now_ms >= h.until_ms) return { started_ms: null, until_ms: 0, ended_ms: h.until_ms };
  return h;
}

/** A hub asks the log to hold: the episode goes on (within its bound), or a new one starts once the log has rested. */
export function askHold(h: LogHold, now_ms: number): LogHold {
  const s = settled(h, now_ms);
  if (s.started_ms !== null) return { ...s, until_ms: Math.min(now_ms + HOLD_ASK_MS, s.started_ms + HOLD_MAX_MS) };
  if (now_ms - s.ended_ms < HOLD_REST_MS) return s;
  return { started_ms: now_ms, until_ms: now_ms + Math.min(HOLD_ASK_MS, HOLD_MAX_MS), ended_ms: s.ended_ms };
}

/** The burst is settled: the episode ends now. */
export function releaseHold(h: LogHold, now_ms: number): LogHold {
  const s = settled(h, now_ms);
  return s.started_ms === null ? s : { started_ms: null, until_ms: 0, ended_ms: now_ms };
}

/** Until when the log holds its appends (null: it appends now). */
export function heldUntil(h: LogHold, now_ms: number): number | null {
  const s = settled(h, now_ms);
  return s.started_ms === null ? null : s.until_ms;
}
