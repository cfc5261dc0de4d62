import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyChange, exclusionDaysValid, fits, inForce, loosens, LOOSEN_DELAY_MS, NO_LIMIT, periodEnd, periodStart, type LimitRow, type Period } from "../../../worker/domain/limits/rules";

const DAY = 86_400_000;
// 1970 to 2100: every time an order can carry.
const time = fc.integer({ min: 0, max: 4_102_444_800_000 });
const period = fc.constantFrom<Period>("day", "week", "month");
const limitValue = fc.option(fc.integer({ min: 1, max: 1e12 }), { nil: null });

/** The order trigger's period starts (migration, hand-written part), written as SQLite computes them. */
function sqlStart(p: Period, t: number): number {
  const day = t - (t % DAY);
  if (p === "day") return day;
  if (p === "week") return day - ((Math.trunc(t / DAY) + 3) % 7) * DAY;
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1); // strftime 'start of month'
}

describe("limit periods", () => {
  it("each time lies in its period, and the period ends where the next begins", () => {
    fc.assert(
      fc.property(period, time, (p, t) => {
        const start = periodStart(p, t);
        const end = periodEnd(p, t);
        expect(start).toBeLessThanOrEqual(t);
        expect(end).toBeGreaterThan(t);
        expect(periodStart(p, end)).toBe(end);
        expect(periodStart(p, end - 1)).toBe(start);
      }),
    );
  });

  it("weeks start on Monday 00:00 UTC, months on the 1st, and the trigger's SQL agrees", () => {
    fc.assert(
      fc.property(period, time, (p, t) => {
        const start = new Date(periodStart(p, t));
        expect(start.getUTCHours() + start.getUTCMinutes() + start.getUTCSeconds() + start.getUTCMilliseconds()).toBe(0);
        if (p === "week") expect(start.getUTCDay()).toBe(1);
        if (p === "month") expect(start.getUTCDate()).toBe(1);
        expect(sqlStart(p, t)).toBe(periodStart(p, t));
      }),
    );
  });
});

describe("changing a limit", () => {
  const row: fc.Arbitrary<LimitRow> = fc.record({ value: limitValue, pending_value: limitValue, pending_at_ms: fc.option(time, { nil: null }) });

  it("no request loosens the limit in force at the moment it is made; a loosening counts exactly 24 h later", () => {
    fc.assert(
      fc.property(row, limitValue, time, (before, next, now) => {
        const current = inForce(before, now);
        const after = applyChange(before, next, now);
        expect(loosens(current, inForce(after, now))).toBe(false);
        if (loosens(current, next)) {
          expect(inForce(after, now + LOOSEN_DELAY_MS - 1)).toBe(current);
          expect(inForce(after, now + LOOSEN_DELAY_MS)).toBe(next);
        } else {
          expect(inForce(after, now)).toBe(next);
          expect(after.pending_at_ms).toBeNull();
        }
      }),
    );
  });

  it("a limit that lets an order through lets it through when looser too, and no limit refuses nothing", () => {
    const usage = fc.record({ stake_in_period: fc.nat(1e10), open_stake: fc.nat(1e10), loss_in_period: fc.integer({ min: -1e10, max: 1e10 }), open_orders: fc.nat(100) });
    const kind = fc.constantFrom("daily_stake", "weekly_loss", "max_open_orders" as const);
    fc.assert(
      fc.property(kind, fc.integer({ min: 1, max: 1e11 }), fc.nat(1e10), usage, fc.integer({ min: 1, max: 1e6 }), (k, limit, more, u, stake) => {
        if (fits(k, limit, u, stake)) expect(fits(k, limit + more, u, stake)).toBe(true);
        expect(fits(k, null, u, stake)).toBe(true);
      }),
    );
  });

  it("the sums: stake limits count the period's stakes; loss limits add open stakes to the realised loss", () => {
    const u = { stake_in_period: 90, open_stake: 20, loss_in_period: 5, open_orders: 2 };
    expect(fits("daily_stake", 100, u, 10)).toBe(true);
    expect(fits("daily_stake", 100, u, 11)).toBe(false);
    expect(fits("daily_loss", 30, u, 5)).toBe(true);
    expect(fits("daily_loss", 30, u, 6)).toBe(false);
    expect(fits("max_open_orders", 3, u, 1)).toBe(true);
    expect(fits("max_open_orders", 2, u, 1)).toBe(false);
    expect(inForce(NO_LIMIT, 0)).toBeNull();
  });

  it("cool-off and exclusion lengths", () => {
    expect([0, 1, 42, 43].map((d) => exclusionDaysValid("cool_off", d))).toEqual([false, true, true, false]);
    expect([182, 183, 1826, 1827, 200.5].map((d) => exclusionDaysValid("exclusion", d))).toEqual([false, true, true, false, false]);
  });
});
