/**
 * Every alert (worker/observability/thresholds.ts `ALERTS`) has a signal an operator can read (a
 * readiness check or a metric with its named query) and a runbook section in docs/operations.md
 * that names that signal; and every alert section there belongs to an alert. The runbook keeps
 * the deploy, rollback, restore and key-rotation sections pointing to their files.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { METRIC_SCHEMA } from "../../worker/observability/metrics";
import { ALERTS, READINESS_CHECKS } from "../../worker/observability/thresholds";

const root = join(__dirname, "../..");
const runbook = readFileSync(join(root, "docs/operations.md"), "utf8");
/** The named queries in docs/ops/metrics.sql (kept by the observability work; names agreed across it). */
const QUERY_NAMES = ["traffic", "error_rate", "latency", "order_groups", "settlement_lag", "feed", "cron"];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} -]/gu, "").replace(/ /g, "-");

/** Each `### ` section of the runbook by its anchor, with its text up to the next heading. */
function sections(): Map<string, string> {
  const out = new Map<string, string>();
  const parts = runbook.split(/^(#{2,3} .+)$/m);
  for (let i = 1; i < parts.length; i += 2) out.set(anchorOf(parts[i].replace(/^#+ /, "")), parts[i + 1] ?? "");
  return out;
}

describe("alerts and their runbooks", () => {
  it("every alert has a readiness check or a metric, each one that exists", () => {
    for (const a of ALERTS) {
      expect(a.readiness ?? a.metric, a.id).toBeDefined();
      if (a.readiness) expect(READINESS_CHECKS, a.id).toContain(a.readiness);
      if (a.metric) {
        expect(Object.keys(METRIC_SCHEMA), a.id).toContain(a.metric.kind);
        expect(QUERY_NAMES, a.id).toContain(a.metric.query);
      }
    }
    expect(new Set(ALERTS.map((a) => a.id)).size).toBe(ALERTS.length);
  });

  it("the issue's six alerts are all defined", () => {
    expect(ALERTS.map((a) => a.id)).toEqual(expect.arrayContaining(["feed_stale", "settlement_backlog", "log_lag", "requests_5xx", "d1_latency", "sockets_near_cap"]));
  });

  it("every alert has its section in docs/operations.md, naming its signal and three first steps", () => {
    const all = sections();
    for (const a of ALERTS) {
      const raw = all.get(a.runbook);
      expect(raw, `docs/operations.md has no section #${a.runbook} (${a.id})`).toBeDefined();
      const text = raw!.replace(/\s+/g, " ");
      if (a.readiness) expect(text, a.id).toContain(`\`${a.readiness}`);
      if (a.metric) {
        expect(text, a.id).toContain(`metric \`${a.metric.kind}\``);
        expect(text, a.id).toContain(`\`${a.metric.query}\``);
      }
      expect(text, a.id).toMatch(/First steps:\*\* 1\. .+ 2\. .+ 3\. /);
    }
  });

  it("every alert section of the runbook belongs to a defined alert", () => {
    const headings = [...runbook.matchAll(/^### (Alert: .+)$/gm)].map((m) => anchorOf(m[1]));
    expect(headings.sort()).toEqual(ALERTS.map((a) => a.runbook).sort());
  });

  it("the named queries an alert runs are in docs/ops/metrics.sql", () => {
    const names = [...readFileSync(join(root, "docs/ops/metrics.sql"), "utf8").matchAll(/^-- name: (\S+)$/gm)].map((m) => m[1]);
    for (const a of ALERTS) if (a.metric) expect(names, a.id).toContain(a.metric.query);
  });

  it("deploy, rollback, restore and key rotation point to their runbooks", () => {
    for (const [heading, file] of [["Deploy", "ops/deploy.md"], ["Rollback", "ops/deploy.md"], ["Restore", "ops/restore.md"], ["Key rotation", "ops/keys.md"]]) {
      expect(runbook).toMatch(new RegExp(`^## ${heading}\\n\\n.*\\(${file.replace(".", "\\.")}[)#]`, "m"));
    }
  });
});
