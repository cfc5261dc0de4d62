-- The operators' queries of Proofline's metrics (docs/ops/observability.md), one per signal, in
-- Workers Analytics Engine's SQL dialect. Run one with the SQL API:
--
--   curl "https://api.cloudflare.com/client/v4/accounts/$ACCOUNT_ID/analytics_engine/sql" \
--     --header "Authorization: Bearer $ANALYTICS_READ_TOKEN" --data-binary @query.sql
--
-- The dataset is the one wrangler.toml binds as METRICS: `proofline_metrics` in production (as
-- written below), `proofline_metrics_staging` in staging. Every point's blob1 and index1 are its kind; the other
-- columns follow METRIC_SCHEMA in worker/observability/metrics.ts:
--
--   request      blob2 route, blob3 status_class, blob4 method      double1 duration_ms, double2 status
--   order_group  blob2 symbol                                        double1 orders, double2 write_ms
--   settlement   blob2 symbol                                        double1 orders, double2 lag_ms
--   feed         blob2 symbol, blob3 feed                            double1 age_ms, double2 sockets
--   cron         blob2 outcome                                       double1 duration_ms, double2 failures,
--                                                                    double3 overdue_orders, double4 log_backlog,
--                                                                    double5 checkpoint_age_ms
--
-- Analytics Engine samples: a stored row may stand for `_sample_interval` points, so counts are
-- SUM(_sample_interval) and averages and quantiles are weighted by it. Each query is separated
-- from the next by a line "-- name: <signal>" (tests/unit/observability/metrics-sql.test.ts reads them).

-- name: traffic
-- Requests a minute by route and status class, the last hour (the golden signals' traffic).
SELECT
  toStartOfMinute(timestamp) AS minute,
  blob2 AS route,
  blob3 AS status_class,
  SUM(_sample_interval) AS requests
FROM proofline_metrics
WHERE index1 = 'request' AND timestamp > NOW() - INTERVAL '1' HOUR
GROUP BY minute, route, status_class
ORDER BY minute, requests DESC;

-- name: error_rate
-- The share of 5xx answers a minute, the last hour (the 5xx-rate alert).
SELECT
  toStartOfMinute(timestamp) AS minute,
  sumIf(_sample_interval, blob3 = '5xx') / SUM(_sample_interval) AS error_rate,
  SUM(_sample_interval) AS requests
FROM proofline_metrics
WHERE index1 = 'request' AND timestamp > NOW() - INTERVAL '1' HOUR
GROUP BY minute
ORDER BY minute;

-- name: latency
-- Median and 95th percentile of the time to answer, by route, the last hour (latency).
SELECT
  blob2 AS route,
  quantileExactWeighted(0.5)(double1, _sample_interval) AS p50_ms,
  quantileExactWeighted(0.95)(double1, _sample_interval) AS p95_ms,
  SUM(_sample_interval) AS requests
FROM proofline_metrics
WHERE index1 = 'request' AND timestamp > NOW() - INTERVAL '1' HOUR
GROUP BY route
ORDER BY p95_ms DESC
LIMIT 20;

-- name: order_groups
-- Orders written a minute per symbol, the orders per D1 batch and the batch's write time (saturation of the order path).
SELECT
  toStartOfMinute(timestamp) AS minute,
  blob2 AS symbol,
  SUM(_sample_interval * double1) AS orders,
  SUM(_sample_interval * double1) / SUM(_sample_interval) AS orders_per_group,
  quantileExactWeighted(0.95)(double2, _sample_interval) AS p95_write_ms
FROM proofline_metrics
WHERE index1 = 'order_group' AND timestamp > NOW() - INTERVAL '1' HOUR
GROUP BY minute, symbol
ORDER BY minute, symbol;

-- name: settlement_lag
-- How late settlement runs after delivery, per symbol and minute (the settlement-backlog alert).
SELECT
  toStartOfMinute(timestamp) AS minute,
  blob2 AS symbol,
  SUM(_sample_interval * double1) AS orders_settled,
  MAX(double2) AS max_lag_ms,
  SUM(_sample_interval * double2) / SUM(_sample_interval) AS avg_lag_ms
FROM proofline_metrics
WHERE index1 = 'settlement' AND timestamp > NOW() - INTERVAL '1' HOUR
GROUP BY minute, symbol
ORDER BY minute, symbol;

-- name: feed
-- Each symbol's latest tick age and open sockets, minute by minute (the feed-stale and sockets-near-the-cap alerts).
-- age_ms is -1 while a hub has no tick at all.
SELECT
  toStartOfMinute(timestamp) AS minute,
  blob2 AS symbol,
  blob3 AS feed,
  MAX(double1) AS age_ms,
  MAX(double2) AS sockets
FROM proofline_metrics
WHERE index1 = 'feed' AND timestamp > NOW() - INTERVAL '1' HOUR
GROUP BY minute, symbol, feed
ORDER BY minute, symbol;

-- name: cron
-- Each cron run: how it went, its failures, the overdue orders and log backlog it left, and the checkpoint's age.
SELECT
  timestamp,
  blob2 AS outcome,
  double1 AS duration_ms,
  double2 AS failures,
  double3 AS overdue_orders,
  double4 AS log_backlog,
  double5 AS checkpoint_age_ms
FROM proofline_metrics
WHERE index1 = 'cron' AND timestamp > NOW() - INTERVAL '1' HOUR
ORDER BY timestamp DESC
LIMIT 60;
