/**
 * Metrics: one Workers Analytics Engine dataset (binding METRICS), written only through this
 * module so that every point has the schema below, the one place the operators' SQL queries
 * (docs/ops/metrics.sql) and the tests read it from. Analytics Engine keeps each point's
 * `blobs` (strings) and `doubles` (numbers) by position: blob1 is always the point's kind and
 * the index is the kind too (it is the sampling key: each kind is sampled on its own).
 *
 * Writing a point never throws and never waits: metrics must not fail a request. Without the
 * binding (Node scripts) points are dropped; `wrangler dev` accepts them and drops them too, so
 * tests hand in a recording dataset (`recordingDataset`).
 */

/** Each kind's named fields, in the order they are written (blob2.., double1..). */
export const METRIC_SCHEMA = {
  /** One API request: its route pattern, status class and time. */
  request: { blobs: ["route", "status_class", "method"], doubles: ["duration_ms", "status"] },
  /** One group of orders written in one D1 batch by a symbol's hub. */
  order_group: { blobs: ["symbol"], doubles: ["orders", "write_ms"] },
  /** One settlement round of a symbol: how many orders, and how late the latest of them was. */
  settlement: { blobs: ["symbol"], doubles: ["orders", "lag_ms"] },
  /** A hub's feed, on its minute beat: the age of its latest tick and its open quote sockets. */
  feed: { blobs: ["symbol", "feed"], doubles: ["age_ms", "sockets"] },
  /** One cron run: how it went, what it left behind, and the log's latest checkpoint age. */
  cron: { blobs: ["outcome"], doubles: ["duration_ms", "failures", "overdue_orders", "log_backlog", "checkpoint_age_ms"] },
} as const;

export type MetricKind = keyof typeof METRIC_SCHEMA;
type Names<K extends MetricKind, F extends "blobs" | "doubles"> = (typeof METRIC_SCHEMA)[K][F][number];
export type MetricPoint<K extends MetricKind> = { [N in Names<K, "blobs">]: string } & { [N in Names<K, "doubles">]: number };

/** Writes one point of `kind` (a no-op without the binding; never throws). */
export function recordMetric<K extends MetricKind>(dataset: AnalyticsEngineDataset | undefined, kind: K, point: MetricPoint<K>): void {
  if (!dataset) return;
  const schema = METRIC_SCHEMA[kind];
  const fields = point as Record<string, string | number>;
  try {
    dataset.writeDataPoint({
      indexes: [kind],
      blobs: [kind, ...schema.blobs.map((b) => String(fields[b] ?? "").slice(0, 256))],
      doubles: schema.doubles.map((d) => (Number.isFinite(fields[d]) ? Number(fields[d]) : 0)),
    });
  } catch {
    // Metrics never fail the work they describe.
  }
}

/** "2xx", "4xx", "5xx" for a status. */
export function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

/** A point as Analytics Engine stores it, read back by its field names (tests, the recorder). */
export type StoredPoint = { kind: MetricKind; blobs: Record<string, string>; doubles: Record<string, number> };

/** Tests: a dataset that keeps every point it is given, readable by field name. */
export function recordingDataset(): AnalyticsEngineDataset & { points: StoredPoint[]; raw: AnalyticsEngineDataPoint[] } {
  const points: StoredPoint[] = [];
  const raw: AnalyticsEngineDataPoint[] = [];
  return {
    points,
    raw,
    writeDataPoint(p?: AnalyticsEngineDataPoint) {
      if (!p) return;
      raw.push(p);
      const kind = String(p.blobs?.[0]) as MetricKind;
      const schema = METRIC_SCHEMA[kind];
      if (!schema) return;
      points.push({
        kind,
        blobs: Object.fromEntries(schema.blobs.map((b, i) => [b, String(p.blobs?.[i + 1] ?? "")])),
        doubles: Object.fromEntries(schema.doubles.map((d, i) => [d, Number(p.doubles?.[i] ?? 0)])),
      });
    },
  };
}
