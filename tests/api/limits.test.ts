import { describe, expect, it } from "vitest";
import { D1LimitError, invocationDb } from "../../worker/db/limits";
import { testEnv } from "./helpers";

// The api project runs under production's D1 limits (vitest.config.ts): a check that the
// binding reaches the Worker's env and the real local D1 is behind the counted view.
describe("D1 limits in the api tests", () => {
  it("a request's view refuses what production D1 would, and passes the rest to the real D1", async () => {
    const db = invocationDb(testEnv);
    expect(db).not.toBe(testEnv.DB);
    const params = Array.from({ length: 101 }, (_, i) => i);
    expect(() => db.prepare(`SELECT ${params.map(() => "?").join(", ")}`).bind(...params)).toThrow(D1LimitError);
    const ok = params.slice(0, 100);
    const row = await db.prepare(`SELECT ${ok.map(() => "?").join(" + ")} AS total`).bind(...ok).first<{ total: number }>();
    expect(row?.total).toBe(4950);
  });
});
