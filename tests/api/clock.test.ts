import { describe, expect, it } from "vitest";
import { createApi } from "../../worker/api/app";
import { serverNow } from "../../worker/clock";
import { db, testEnv } from "./helpers";

/** The earn clock moves only on a test deployment; nobody else can reach the route. */
const app = createApi();
async function clock(env: typeof testEnv, body?: Record<string, unknown>) {
  const res = await app.request("/api/test/clock", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) }, env);
  return { status: res.status, ...((await res.json()) as { code: number; data: any }) };
}

describe("test clock", () => {
  it("moves forward by what a test asks, and serverNow follows", async () => {
    const before = await serverNow(testEnv, db);
    const r = await clock(testEnv, { advance_ms: 86_400_000 });
    expect(r.code).toBe(1);
    expect(r.data.now_ms - before).toBeGreaterThanOrEqual(86_400_000);
    expect((await serverNow(testEnv, db)) - Date.now()).toBeGreaterThanOrEqual(86_400_000 - 1000);
    expect((await clock(testEnv, { advance_ms: -5 })).code).toBe(0);
  });

  it("does not exist in production or without the binding, and the offset is ignored there", async () => {
    for (const env of [{ ...testEnv, APP_ENV: "production" }, { ...testEnv, TEST_CLOCK: undefined }]) {
      const r = await clock(env, { advance_ms: 1000 });
      expect(r.status).toBe(404);
      expect(Math.abs((await serverNow(env, db)) - Date.now())).toBeLessThan(1000);
    }
  });
});
