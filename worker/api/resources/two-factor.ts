/** `/api/user/2fa/*`: authenticator-code (TOTP) two-factor: setup, enable, disable, state. */
import { Hono } from "hono";
import type { Context } from "hono";
import { z } from "zod";
import { beginSetup, confirmUserProofs, disableTwoFactor, enableTwoFactor, recoveryCodesLeft, twoFactorOn } from "../../domain/identity/two-factor";
import { requireUser } from "../middleware/auth";
import { ApiError, loginThrottled, ok, read } from "../envelope";
import { text } from "../fields";
import type { AppEnv } from "../types";
import { limitAuthAttempts } from "../middleware/rate-limit";
import { cardKeysOrNull, confirmCode, confirmPassword, proofsOrThrow } from "./money-guards";

const EnableBody = z.object({ code: text({ max: 32, invalid: "errors.two_factor_code_wrong" }), password: confirmPassword });
const DisableBody = z.object({ code: confirmCode, password: confirmPassword });

/** A code alone (no password): counted in the account's throttle like every other proof. */
export async function requireCode(c: Context<AppEnv>, code: string): Promise<void> {
  proofsOrThrow(await confirmUserProofs(c.get("db"), await cardKeysOrNull(c), c.get("user"), { code }, Date.now()));
}

export const twoFactorApi = new Hono<AppEnv>()
  .use("*", requireUser)
  .post("/status", async (c) => {
    const user_id = c.get("user").id;
    const on = await twoFactorOn(c.get("db"), user_id);
    return ok(c, { enabled: on, recovery_codes_left: on ? await recoveryCodesLeft(c.get("db"), user_id) : 0 });
  })
  .post("/setup", async (c) => {
    const r = await beginSetup(c.get("db"), await cardKeysOrNull(c), c.get("user"), Date.now());
    if (r.status !== "ok") throw new ApiError(`errors.two_factor_${r.status}`);
    return ok(c, { secret: r.secret, otpauth_url: r.otpauth_url });
  })
  // The login password and a code: counted in the account's throttle and the network's limiter (decision 116).
  .post("/enable", limitAuthAttempts, async (c) => {
    const body = read(c, EnableBody);
    const r = await enableTwoFactor(c.get("db"), await cardKeysOrNull(c), c.get("user"), body, Date.now());
    if (r.status === "throttled") throw loginThrottled(r.retry_after_ms);
    if (r.status === "password_wrong") throw new ApiError("errors.password_wrong");
    if (r.status !== "ok") throw new ApiError(`errors.two_factor_${r.status}`);
    // Shown once: only their keyed hashes are kept.
    return ok(c, { recovery_codes: r.recovery_codes }, "errors.two_factor_enabled");
  })
  .post("/disable", limitAuthAttempts, async (c) => {
    const body = read(c, DisableBody);
    const r = await disableTwoFactor(c.get("db"), await cardKeysOrNull(c), c.get("user"), body, Date.now());
    if (r.status === "not_on") throw new ApiError("errors.two_factor_not_on");
    if (r.status !== "ok") proofsOrThrow(r);
    return ok(c, null, "errors.two_factor_disabled");
  });
