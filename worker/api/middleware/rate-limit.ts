import type { MiddlewareHandler } from "hono";
import { ApiError } from "../envelope";
import type { AppEnv } from "../types";
import { limiterNetworkOf } from "../../domain/identity/client";

/**
 * Sign-in and registration attempts per client network, an IPv4 address or an IPv6 /64
 * (Cloudflare's rate limiting binding, `AUTH_LIMIT` in wrangler.toml: 30 a minute). The per-account lock stops guessing one
 * password; this stops one source from trying many accounts, and from spending our CPU on
 * password hashing. Pages pass their visitor's address on their in-process calls; a request
 * without `CF-Connecting-IP` (Node scripts, tests calling the app directly) is not counted.
 * Password checks of signed-in users (the password change, turning two-factor on or off)
 * count here too (decision 113).
 */
export const limitAuthAttempts: MiddlewareHandler<AppEnv> = async (c, next) => {
  const network = limiterNetworkOf(c.req.header("cf-connecting-ip"));
  const limiter = c.env.AUTH_LIMIT;
  if (network && limiter) {
    const { success } = await limiter.limit({ key: `auth:${network}` });
    if (!success) throw new ApiError("errors.too_many_attempts", 429, {}, { retry_after_ms: 60_000 });
  }
  await next();
};
