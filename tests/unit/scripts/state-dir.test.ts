/**
 * Decision 158: every local state of a run is found by `stateDir`, under `.wrangler/` unless
 * `npm test` named a root (its RAM disk), so one variable moves every server's state.
 */
import { afterEach, describe, expect, it } from "vitest";
import { STATE_ROOT_ENV, stateDir } from "../../../scripts/lib";

const before = process.env[STATE_ROOT_ENV];
afterEach(() => {
  if (before === undefined) delete process.env[STATE_ROOT_ENV];
  else process.env[STATE_ROOT_ENV] = before;
});

describe("stateDir", () => {
  it("is .wrangler/<name> when no root is set", () => {
    delete process.env[STATE_ROOT_ENV];
    expect(stateDir("e2e")).toBe(".wrangler/e2e");
    expect(stateDir("state")).toBe(".wrangler/state");
  });

  it("is <root>/<name> when npm test set a root, read at each call", () => {
    process.env[STATE_ROOT_ENV] = "/dev/shm/proofline-test-1/state";
    expect(stateDir("crash")).toBe("/dev/shm/proofline-test-1/state/crash");
    process.env[STATE_ROOT_ENV] = "/tmp/other";
    expect(stateDir("crash")).toBe("/tmp/other/crash");
  });
});
