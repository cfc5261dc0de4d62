import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bonusFor, bookable, eligibility } from "../../../worker/domain/promotions/bonus";
import { openState } from "../../../worker/domain/audit/second-operator";

const USDT = 1_000_000;
const terms = fc.record({ percent_bp: fc.integer({ min: 1, max: 10_000 }), cap_micro: fc.integer({ min: 1, max: 1_000_000 * USDT }) });
const credited = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });

describe("bonusFor: min(credited × percent, cap), rounded down", () => {
  it("is an integer of micro-units, never above the cap, never above the percent of the deposit", () => {
    fc.assert(
      fc.property(credited, terms, (c, t) => {
        const b = bonusFor(c, t);
        expect(Number.isSafeInteger(b)).toBe(true);
        expect(b).toBeGreaterThanOrEqual(0);
        expect(b).toBeLessThanOrEqual(t.cap_micro);
        // b ≤ c × bp / 10,000, exactly (BigInt: the product passes 2^53).
        expect(BigInt(b) * 10_000n).toBeLessThanOrEqual(BigInt(c) * BigInt(t.percent_bp));
      }),
    );
  });

  it("rounds down: below the cap it is the largest integer not above the exact percent", () => {
    fc.assert(
      fc.property(credited, terms, (c, t) => {
        const b = bonusFor(c, t);
        if (b < t.cap_micro) expect(BigInt(b + 1) * 10_000n).toBeGreaterThan(BigInt(c) * BigInt(t.percent_bp));
      }),
    );
  });

  it("grows with the deposit (a larger deposit never gives less)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e12 }), fc.integer({ min: 0, max: 1e12 }), terms, (c, more, t) => {
        expect(bonusFor(c + more, t)).toBeGreaterThanOrEqual(bonusFor(c, t));
      }),
    );
  });

  it("examples", () => {
    expect(bonusFor(123_450_000, { percent_bp: 1000, cap_micro: 50 * USDT })).toBe(12_345_000);
    expect(bonusFor(1_000 * USDT, { percent_bp: 1000, cap_micro: 50 * USDT })).toBe(50 * USDT);
    // 0.01 % of 0.99 USDT is 99 micro-units exactly; 0.01 % of 9,999 micro is 0.9999 → 0.
    expect(bonusFor(990_000, { percent_bp: 1, cap_micro: USDT })).toBe(99);
    expect(bonusFor(9_999, { percent_bp: 1, cap_micro: USDT })).toBe(0);
    expect(bonusFor(0, { percent_bp: 1000, cap_micro: USDT })).toBe(0);
    expect(bonusFor(-5, { percent_bp: 1000, cap_micro: USDT })).toBe(0);
    expect(bonusFor(Number.MAX_SAFE_INTEGER, { percent_bp: 10_000, cap_micro: Number.MAX_SAFE_INTEGER })).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe("eligibility of a deposit", () => {
  const window = { min_deposit_micro: 50 * USDT, starts_at_ms: 1_000, ends_at_ms: 2_000 };
  const ok = { user_id: 7, status: "approved", credited_micro: 50 * USDT, created_at_ms: 1_000 };

  it("qualifies: the user's own, approved, inside [starts, ends), credited at least the minimum", () => {
    expect(eligibility(ok, 7, window)).toBe("ok");
    expect(eligibility({ ...ok, created_at_ms: 1_999 }, 7, window)).toBe("ok");
  });

  it("names why not", () => {
    expect(eligibility(ok, 8, window)).toBe("deposit_not_yours");
    expect(eligibility({ ...ok, status: "review", credited_micro: null }, 7, window)).toBe("deposit_not_approved");
    expect(eligibility({ ...ok, status: "confirming" }, 7, window)).toBe("deposit_not_approved");
    expect(eligibility({ ...ok, status: "rejected" }, 7, window)).toBe("deposit_not_approved");
    expect(eligibility({ ...ok, created_at_ms: 999 }, 7, window)).toBe("deposit_outside_period");
    expect(eligibility({ ...ok, created_at_ms: 2_000 }, 7, window)).toBe("deposit_outside_period");
    expect(eligibility({ ...ok, credited_micro: 50 * USDT - 1 }, 7, window)).toBe("deposit_below_minimum");
  });

  it("judges the credited amount, never what the user claimed", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e12 }), (c) => {
        expect(eligibility({ ...ok, credited_micro: c }, 7, window) === "ok").toBe(c >= window.min_deposit_micro);
      }),
    );
  });
});

describe("bookable", () => {
  const p = { enabled: 1, starts_at_ms: 1_000, ends_at_ms: 2_000 };
  it("takes bookings only while open and inside the period", () => {
    expect(bookable(p, 1_000)).toBe("ok");
    expect(bookable(p, 999)).toBe("promotion_not_started");
    expect(bookable(p, 2_000)).toBe("promotion_ended");
    expect(bookable({ ...p, enabled: 0 }, 1_500)).toBe("promotion_closed");
  });
});

describe("opening a promotion reuses the second-operator rule", () => {
  it("whoever set the terms cannot open them; someone else can", () => {
    const set = openState(1, null, true, true)!;
    expect(set).toEqual({ enabled: 0, terms_by: 1, opened_by: null });
    expect(openState(1, set, true, false)).toBeNull();
    expect(openState(2, set, true, false)).toEqual({ enabled: 1, terms_by: 1, opened_by: 2 });
  });
});
