/**
 * `npm test` runs vitest in three steps (scripts/vitest-steps.ts): a project that no step takes
 * would never run in CI, and one taken twice would run twice.
 */
import { describe, expect, it } from "vitest";
import config from "../../../vitest.config";
import { takes, VITEST_STEPS } from "../../../scripts/vitest-steps";

const projects = (config.test?.projects ?? []).map((p) => (p as { test: { name: string } }).test.name);

describe("npm test's vitest steps", () => {
  it("take every project of vitest.config.ts exactly once", () => {
    expect(projects.length).toBeGreaterThanOrEqual(7);
    const patterns = Object.values(VITEST_STEPS).flat();
    for (const name of projects) expect(patterns.filter((p) => takes(p, name)), name).toHaveLength(1);
  });

  it("have no pattern that takes no project", () => {
    for (const pattern of Object.values(VITEST_STEPS).flat()) expect(projects.some((name) => takes(pattern, name)), pattern).toBe(true);
  });

  it("read a trailing * as vitest does", () => {
    expect(takes("api*", "api-clock")).toBe(true);
    expect(takes("api*", "integration")).toBe(false);
    expect(takes("unit", "unit-2")).toBe(false);
  });
});
