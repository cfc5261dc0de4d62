/**
 * `/api/user/`: the signed-in user's sessions and sign-in history (`sessions`,
 * `sessions/revoke`, `login_history`), passkeys (`passkeys/*`) and passkey sign-in
 * (`passkey_login/*`).
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { walletOf } from "../../mode";
import { Hono, type Context } from "hono";
import { z } from "zod";
import { clientOf } from "../../domain/identity/client";
import {
  listPasskeys,
  passkeyLogin,
  passkeyLoginOptions,
  passkeyRegisterOptions,
  passkeyRegisterVerify,
  PASSKEY_NAME_MAX,
  relyingPartyOf,
  removePasskey,
  renamePasskey,
} from "../../domain/identity/passkeys";
import { listUserSessions, revokeOtherUserSessions, revokeUserSession } from "../../domain/identity/session-list";
import { sessionsEnded } from "../../session-end";
import { loginHistory } from "../../domain/identity/sign-ins";
import { userBalances } from "../../domain/ledger/balances";
import { requireUser } from "../middleware/auth";
import { limitAuthAttempts } from "../middleware/rate-limit";
import { ApiError, loginThrottled, ok, read } from "../envelope";
import { optionalText, text } from "../fields";
import type { AppEnv } from "../types";
import { handOverAtSignIn } from "./service";
import { userInfo } from "./user";
import { confirmCode, confirmPassword, requirePassword } from "./money-guards";
import { requireCode } from "./two-factor";
import { afterResponse } from "../idempotency";
import { deliverNotices } from "../../notices";
import { hasPassword } from "../../domain/identity/users";

const RevokeBody = z.union([
  z.object({ all_others: z.union([z.literal(1), z.literal("1"), z.literal(true)]) }).transform(() => ({ all_others: true as const })),
  z.object({ id: text({ max: 64, invalid: "errors.session_unknown" }) }),
]);

const CredentialShape = z.looseObject({
  id: z.string().min(1).max(1400),
  rawId: z.string().max(1400),
  type: z.literal("public-key"),
  response: z.looseObject({}),
});

/** A WebAuthn answer as the browser library makes it, sent as an object or as its JSON text. */
const credentialJson = z.unknown().transform((v, ctx) => {
  const parsed = CredentialShape.safeParse(typeof v === "string" ? jsonOrNull(v) : v);
  if (parsed.success) return parsed.data;
  ctx.addIssue({ code: "custom", message: "errors.passkey_invalid" });
  return z.NEVER;
});

function jsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

// With two-factor on, the code too: a passkey signs in without one, so adding one must not be easier than signing in.
const RegisterOptionsBody = z.object({ password: confirmPassword, code: confirmCode });
const RegisterVerifyBody = z.object({ response: credentialJson, name: optionalText(PASSKEY_NAME_MAX) });
const LoginVerifyBody = z.object({ response: credentialJson });
const PasskeyId = text({ max: 1400, invalid: "errors.passkey_unknown" });
const RenameBody = z.object({ id: PasskeyId, name: text({ max: PASSKEY_NAME_MAX }) });
const RemoveBody = z.object({ id: PasskeyId });

const rp = (c: Context<AppEnv>) => relyingPartyOf(c.req.url, Date.now());

export const devicesApi = new Hono<AppEnv>()
  .post("/sessions", requireUser, async (c) => {
    const list = await listUserSessions(c.get("db"), c.get("user").id, c.get("session_token_hash"), Date.now());
    return ok(c, { list });
  })
  .post("/sessions/revoke", requireUser, async (c) => {
    const body = read(c, RevokeBody);
    const db = c.get("db");
    const user_id = c.get("user").id;
    if ("all_others" in body) {
      const result = await revokeOtherUserSessions(db, user_id, c.get("session_token_hash"), Date.now());
      await sessionsEnded(c.env, db, user_id, { all_but: c.get("session_token_hash") });
      return ok(c, { ended: result.status === "ok" ? result.ended : 0 }, "errors.sessions_ended");
    }
    const result = await revokeUserSession(db, user_id, body.id, Date.now());
    if (result.status !== "ok") throw new ApiError(`errors.${result.status}`);
    await sessionsEnded(c.env, db, user_id, { token_hash: result.token_hash });
    return ok(c, { ended: result.ended }, "errors.session_ended");
  })
  .post("/login_history", requireUser, async (c) => ok(c, { list: await loginHistory(c.get("db"), c.get("user").id) }))
  .post("/passkeys/list", requireUser, async (c) => ok(c, { list: await listPasskeys(c.get("db"), c.get("user").id) }))
  .post("/passkeys/register/options", requireUser, limitAuthAttempts, async (c) => {
    const { password, code } = read(c, RegisterOptionsBody);
    // A passkey outlives a password change: a stolen session alone must not add one. A wallet
    // account without a password has only its session (as when it sets its first password).
    if (hasPassword(c.get("user"))) await requirePassword(c, password, code);
    else await requireCode(c, code); // passes when two-factor is off
    const result = await passkeyRegisterOptions(c.get("db"), c.get("user"), rp(c));
    if (result.status !== "ok") throw new ApiError(`errors.${result.status}`);
    return ok(c, { options: result.options });
  })
  .post("/passkeys/register/verify", requireUser, limitAuthAttempts, async (c) => {
    const body = read(c, RegisterVerifyBody);
    const input = { response: body.response as unknown as RegistrationResponseJSON, name: body.name ?? "", client: clientOf(c.req.raw.headers) };
    const result = await passkeyRegisterVerify(c.get("db"), c.get("user"), input, rp(c));
    if (result.status !== "ok") throw new ApiError(`errors.${result.status}`);
    return ok(c, { passkey: result.passkey }, "errors.passkey_added");
  })
  .post("/passkeys/rename", requireUser, async (c) => {
    const body = read(c, RenameBody);
    const result = await renamePasskey(c.get("db"), c.get("user").id, body.id, body.name);
    if (result.status !== "ok") throw new ApiError(`errors.${result.status}`);
    return ok(c, null, "errors.passkey_renamed");
  })
  .post("/passkeys/remove", requireUser, async (c) => {
    const body = read(c, RemoveBody);
    const result = await removePasskey(c.get("db"), c.get("user").id, body.id);
    if (result.status !== "ok") throw new ApiError(`errors.${result.status}`);
    return ok(c, null, "errors.passkey_removed");
  })
  .post("/passkey_login/options", limitAuthAttempts, async (c) => ok(c, { options: await passkeyLoginOptions(c.get("db"), rp(c)) }))
  .post("/passkey_login/verify", limitAuthAttempts, async (c) => {
    const body = read(c, LoginVerifyBody);
    const response = body.response as unknown as AuthenticationResponseJSON;
    const party = rp(c);
    const result = await passkeyLogin(c.get("db"), response, clientOf(c.req.raw.headers), party);
    if (result.status === "throttled") throw loginThrottled(result.retry_after_ms);
    if (result.status !== "ok") throw new ApiError(`errors.${result.status}`);
    await handOverAtSignIn(c, result.user.id);
    await afterResponse(c, deliverNotices(c.env, [result.user.id], party.now_ms));
    return ok(c, { userinfo: userInfo(result.user, await userBalances(c.get("db"), result.user.id, walletOf(c.env)), result.token) }, "errors.logged_in");
  });
