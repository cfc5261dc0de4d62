import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { METRIC_SCHEMA, type MetricKind } from "../../../worker/observability/metrics";

/** The operators' queries (docs/ops/metrics.sql), each under its "-- name:" line. */
function queries(): { name: string; sql: string }[] {
  const text = readFileSync("docs/ops/metrics.sql", "utf8");
  return text
    .split(/^-- name: /m)
    .slice(1)
    .map((part) => {
      const [name, ...rest] = part.split("\n");
      return { name: name.trim(), sql: rest.filter((l) => !l.startsWith("--")).join("\n").trim() };
    });
}

describe("the operators' metric queries (docs/ops/metrics.sql)", () => {
  it("ask every kind of point the Worker writes", () => {
    const asked = new Set(queries().flatMap((q) => [...q.sql.matchAll(/index1 = '([a-z_]+)'/g)].map((m) => m[1])));
    expect([...asked].sort()).toEqual(Object.keys(METRIC_SCHEMA).sort());
  });

  it("read only the columns their kind has, from the one dataset, one statement each", () => {
    for (const q of queries()) {
      const kinds = [...q.sql.matchAll(/index1 = '([a-z_]+)'/g)].map((m) => m[1] as MetricKind);
      expect(kinds, q.name).toHaveLength(1);
      const schema = METRIC_SCHEMA[kinds[0]];
      for (const [, n] of q.sql.matchAll(/\bblob(\d+)\b/g)) expect(Number(n), `${q.name}: blob${n}`).toBeLessThanOrEqual(1 + schema.blobs.length);
      for (const [, n] of q.sql.matchAll(/\bdouble(\d+)\b/g)) expect(Number(n), `${q.name}: double${n}`).toBeLessThanOrEqual(schema.doubles.length);
      expect(q.sql, q.name).toMatch(/FROM proofline_metrics\b/);
      expect(q.sql.trim().endsWith(";"), q.name).toBe(true);
      expect(q.sql.slice(0, -1), q.name).not.toContain(";");
    }
  });
});
