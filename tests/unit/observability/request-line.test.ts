import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { captureLogs, type LogFields, type LogLevel } from "../../../worker/observability/log";
import { requestDone, SLOW_REQUEST_MS } from "../../../worker/observability/request";

/** The lines and metric points one answered request writes. */
function answer(status: number, duration_ms: number, err?: unknown) {
  const lines: { level: LogLevel; line: LogFields }[] = [];
  const points: unknown[] = [];
  const restore = captureLogs(lines);
  try {
    requestDone({ writeDataPoint: (p: unknown) => points.push(p) } as unknown as AnalyticsEngineDataset, { request_id: "r1", route: "/api/order/addorder" }, "POST", status, duration_ms, err);
  } finally {
    restore();
  }
  return { lines, points };
}

describe("the request line (decision 156)", () => {
  it("a fast success writes its metric point and no line", () => {
    const { lines, points } = answer(200, SLOW_REQUEST_MS - 1);
    expect(lines).toEqual([]);
    expect(points).toHaveLength(1);
  });

  it("a slow success writes an info line; a refusal warn; a failure and a throw error", () => {
    expect(answer(200, SLOW_REQUEST_MS).lines.map((l) => l.line)).toMatchObject([{ level: "info", event: "http.request", status: 200, duration_ms: SLOW_REQUEST_MS }]);
    expect(answer(429, 3).lines.map((l) => l.level)).toEqual(["warn"]);
    expect(answer(500, 3, new Error("boom")).lines.map((l) => l.line)).toMatchObject([{ level: "error", status: 500, error: "boom" }]);
  });

  it("property: a line exactly when refused, failed or slow; a point always", () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), fc.integer({ min: 0, max: 5 * SLOW_REQUEST_MS }), (status, duration_ms) => {
        const { lines, points } = answer(status, duration_ms);
        expect(lines.length).toBe(status >= 400 || duration_ms >= SLOW_REQUEST_MS ? 1 : 0);
        expect(points).toHaveLength(1);
      }),
      { numRuns: 300 },
    );
  });
});
