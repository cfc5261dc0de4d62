import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ORDER_RATES, OrderRates } from "../../../durable-objects/quotes/order-rates";

describe("order rates", () => {
  it("a session takes its burst at once, then one token per 1/rate seconds, and hears how long to wait", () => {
    const r = new OrderRates();
    const t0 = 1_000_000;
    for (let i = 0; i < ORDER_RATES.session.burst; i++) expect(r.take("s1", null, t0).ok).toBe(true);
    const refused = r.take("s1", null, t0);
    expect(refused).toEqual({ ok: false, retry_after_ms: 1000 / ORDER_RATES.session.per_s });
    expect(r.take("s1", null, t0 + 1000 / ORDER_RATES.session.per_s).ok).toBe(true);
    // Another session is not held back.
    expect(r.take("s2", null, t0).ok).toBe(true);
  });

  it("sessions of one network share the network's bucket; a refused take spends nothing", () => {
    const r = new OrderRates();
    const t0 = 5_000_000;
    let taken = 0;
    for (let s = 0; s < 10; s++) for (let i = 0; i < 10; i++) if (r.take(`s${s}`, "203.0.113.7", t0).ok) taken++;
    expect(taken).toBe(ORDER_RATES.network.burst);
    // The sessions kept their own tokens: from another network they go on.
    expect(r.take("s9", "198.51.100.1", t0).ok).toBe(true);
  });

  it("property: over any schedule, takes never exceed burst + rate × elapsed", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 300 }), (gaps) => {
        const r = new OrderRates();
        let now = 0;
        let ok = 0;
        for (const gap of gaps) {
          now += gap;
          if (r.take("s", "n", now).ok) ok++;
        }
        expect(ok).toBeLessThanOrEqual(ORDER_RATES.session.burst + Math.floor((now * ORDER_RATES.session.per_s) / 1000) + 1);
      }),
    );
  });
});
