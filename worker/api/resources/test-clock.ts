/** `/api/test/clock`: moves the server's earn clock forward, only on a test deployment (worker/clock.ts). */
import { Hono } from "hono";
import { z } from "zod";
import { advanceTestClock, serverNow, testClockEnabled } from "../../clock";
import { ApiError, ok, read } from "../envelope";
import { int } from "../fields";
import type { AppEnv } from "../types";

const Advance = z.object({ advance_ms: int({ min: 0, max: 366 * 86_400_000 }) });

export const testClockApi = new Hono<AppEnv>()
  .use("*", async (c, next) => {
    // Anywhere else this route does not exist: a client can never move the clock.
    if (!testClockEnabled(c.env)) throw new ApiError("errors.not_found", 404);
    await next();
  })
  .on(["GET", "POST"], "/clock", async (c) => {
    const body = read(c, Advance.partial());
    const offset_ms = body.advance_ms ? await advanceTestClock(c.get("db"), body.advance_ms) : null;
    return ok(c, { now_ms: await serverNow(c.env, c.get("db")), offset_ms });
  });
