/**
 * The vitest projects (vitest.config.ts) each vitest step of `npm test` runs (scripts/test.ts):
 * the unit tests while the build is made (they need none of it), the deploy's dry run once the
 * pages are built, and everything else in the main step. A name ending in `*` takes every project
 * it begins (vitest's own `--project` pattern). tests/unit/scripts/vitest-steps.test.ts checks
 * that together they run every project of the config exactly once (decision 163).
 */
export const VITEST_STEPS = {
  unit: ["unit"],
  deploy: ["deploy"],
  vitest: ["api*", "integration"],
} as const;

export type VitestStep = keyof typeof VITEST_STEPS;

/** The step's `--project` arguments. */
export const projectArgs = (step: VitestStep) => VITEST_STEPS[step].map((p) => `--project=${p}`);

/** Whether a project name is taken by one of vitest's `--project` patterns. */
export const takes = (pattern: string, name: string) => (pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern);
