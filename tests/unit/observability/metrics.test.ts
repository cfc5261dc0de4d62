import { describe, expect, it } from "vitest";
import { METRIC_SCHEMA, recordMetric, recordingDataset, statusClass } from "../../../worker/observability/metrics";

describe("metrics", () => {
  it("writes each kind with its blobs and doubles in the schema's order, the kind first and as index", () => {
    const ds = recordingDataset();
    recordMetric(ds, "request", { route: "/api/order/addorder", status_class: "2xx", method: "POST", duration_ms: 12.5, status: 200 });
    recordMetric(ds, "cron", { outcome: "ok", duration_ms: 40, failures: 0, overdue_orders: 2, log_backlog: 5, checkpoint_age_ms: 900 });
    expect(ds.raw[0]).toEqual({ indexes: ["request"], blobs: ["request", "/api/order/addorder", "2xx", "POST"], doubles: [12.5, 200] });
    expect(ds.points[1]).toEqual({ kind: "cron", blobs: { outcome: "ok" }, doubles: { duration_ms: 40, failures: 0, overdue_orders: 2, log_backlog: 5, checkpoint_age_ms: 900 } });
  });

  it("stays within Analytics Engine's limits for every kind (20 blobs, 20 doubles, one index)", () => {
    for (const s of Object.values(METRIC_SCHEMA)) {
      expect(s.blobs.length + 1).toBeLessThanOrEqual(20);
      expect(s.doubles.length).toBeLessThanOrEqual(20);
    }
  });

  it("never throws: no binding, a failing dataset, or a number that is not one", () => {
    expect(() => recordMetric(undefined, "feed", { symbol: "BTC/USDT", feed: "binance", age_ms: 1, sockets: 2 })).not.toThrow();
    const broken = { writeDataPoint: () => { throw new Error("quota"); } } as unknown as AnalyticsEngineDataset;
    expect(() => recordMetric(broken, "feed", { symbol: "BTC/USDT", feed: "binance", age_ms: 1, sockets: 2 })).not.toThrow();
    const ds = recordingDataset();
    recordMetric(ds, "settlement", { symbol: "ETH/USDT", orders: 3, lag_ms: Number.NaN });
    expect(ds.points[0].doubles.lag_ms).toBe(0);
  });

  it("classes statuses", () => {
    expect([200, 301, 404, 429, 503].map(statusClass)).toEqual(["2xx", "3xx", "4xx", "4xx", "5xx"]);
  });
});
