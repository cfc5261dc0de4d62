/**
 * The log's hold while a burst settles (durable-objects/transparency/hold.ts): it waits only as
 * long as it is asked, one episode at most HOLD_MAX_MS, then rests HOLD_REST_MS whatever a hub
 * asks, so no market can keep the log from signing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { askHold, heldUntil, HOLD_ASK_MS, HOLD_MAX_MS, HOLD_REST_MS, NO_HOLD, releaseHold, type LogHold } from "../../../../durable-objects/transparency/hold";

const T = 1_800_000_000_000;

describe("the log's hold", () => {
  it("holds for HOLD_ASK_MS after an ask, longer when asked again, and ends at a release", () => {
    let h = askHold(NO_HOLD, T);
    expect(heldUntil(h, T)).toBe(T + HOLD_ASK_MS);
    expect(heldUntil(h, T + HOLD_ASK_MS - 1)).toBe(T + HOLD_ASK_MS);
    expect(heldUntil(h, T + HOLD_ASK_MS)).toBeNull();
    h = askHold(h, T + 2_000);
    expect(heldUntil(h, T + 4_000)).toBe(T + 2_000 + HOLD_ASK_MS);
    h = releaseHold(h, T + 4_500);
    expect(heldUntil(h, T + 4_500)).toBeNull();
  });

  it("ends an episode at HOLD_MAX_MS however often it is asked, then refuses asks for HOLD_REST_MS", () => {
    let h: LogHold = NO_HOLD;
    for (let t = T; t < T + HOLD_MAX_MS; t += 500) h = askHold(h, t);
    // Held until the episode's bound, not a moment past it.
    expect(heldUntil(h, T + HOLD_MAX_MS - 1)).toBe(T + HOLD_MAX_MS);
    expect(heldUntil(h, T + HOLD_MAX_MS)).toBeNull();
    // Asked on and on after it: refused.
    for (let t = T + HOLD_MAX_MS; t < T + HOLD_MAX_MS + 5_000; t += 500) h = askHold(h, t);
    expect(heldUntil(h, T + HOLD_MAX_MS + 5_000)).toBeNull();
    const rested = askHold(h, T + HOLD_MAX_MS + HOLD_REST_MS - 1);
    expect(heldUntil(rested, T + HOLD_MAX_MS + HOLD_REST_MS - 1)).toBeNull();
    const again = askHold(rested, T + HOLD_MAX_MS + HOLD_REST_MS);
    expect(heldUntil(again, T + HOLD_MAX_MS + HOLD_REST_MS)).toBe(T + HOLD_MAX_MS + HOLD_REST_MS + HOLD_ASK_MS);
  });

  it("counts the rest from a release too: a hub that releases and asks again at once is refused", () => {
    const h = releaseHold(askHold(NO_HOLD, T), T + 1_000);
    expect(heldUntil(askHold(h, T + 1_001), T + 1_001)).toBeNull();
    expect(heldUntil(askHold(h, T + 1_000 + HOLD_REST_MS), T + 1_000 + HOLD_REST_MS)).not.toBeNull();
  });

  it("whatever the asks and releases, no episode outlasts HOLD_MAX_MS and every two are HOLD_REST_MS apart", () => {
    // Mostly asks, a second or two apart, as a burst's invocations come: long episodes are the case to catch.
    const step = fc.record({ after_ms: fc.integer({ min: 0, max: 3_500 }), release: fc.integer({ min: 0, max: 9 }).map((n) => n === 0) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        let h: LogHold = NO_HOLD;
        let now = T;
        // The held stretches: the state only changes at a step, so between two steps the log is
        // held exactly until min(its until, the next step).
        const held: { from: number; to: number }[] = [];
        const hold = (from: number, to: number) => {
          if (to <= from) return;
          const last = held[held.length - 1];
          if (last && last.to === from) last.to = to;
          else held.push({ from, to });
        };
        for (const s of steps) {
          const next = now + s.after_ms;
          const until = heldUntil(h, now);
          if (until !== null) hold(now, Math.min(until, next));
          now = next;
          h = s.release ? releaseHold(h, now) : askHold(h, now);
        }
        const until = heldUntil(h, now);
        if (until !== null) hold(now, until);
        for (const e of held) expect(e.to - e.from).toBeLessThanOrEqual(HOLD_MAX_MS);
        for (let i = 1; i < held.length; i++) expect(held[i].from - held[i - 1].to).toBeGreaterThanOrEqual(HOLD_REST_MS);
      }),
    );
  });

  it("a log that was never asked is never held", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 60_000 }), { maxLength: 50 }), (gaps) => {
        let h: LogHold = NO_HOLD;
        let now = T;
        for (const gap of gaps) {
          now += gap;
          h = releaseHold(h, now);
          expect(heldUntil(h, now)).toBeNull();
        }
      }),
    );
  });
});
