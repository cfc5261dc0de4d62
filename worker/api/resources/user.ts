/** `/api/user/*`: identity and the signed-in user's own data. */
import { Hono } from "hono";
import { logSequencer } from "../../../durable-objects/transparency/log-api";
import { z } from "zod";
import { LANGUAGES } from "../../../locales/languages";
import { grantDemoMoney } from "../../domain/ledger/demo";
import { modeOf, walletOf } from "../../mode";
import { changePassword, hasPassword, loginUser, registerUser, setUserLanguage, type User } from "../../domain/identity/users";
import { revokeSession } from "../../domain/identity/session";
import { sessionsEnded } from "../../session-end";
import { ACCOUNT_RE, INVITE_CODE_RE, PASSWORD_MAX } from "../../domain/identity/rules";
import { requireUser } from "../middleware/auth";
import { formatAmount } from "../../domain/money/units";
import { userBalances, type UserBalances } from "../../domain/ledger/balances";
import { ApiError, loginThrottled, ok, read } from "../envelope";
import { text } from "../fields";
import type { AppEnv } from "../types";
import { limitAuthAttempts } from "../middleware/rate-limit";
import { setInviterLater } from "../../domain/identity/invitation";
import { issueNonce, walletLogin } from "../../domain/identity/wallet-login";
import { handOverAtSignIn } from "./service";
import { afterResponse } from "../idempotency";
import { deliverNotices } from "../../notices";
import { twoFactorOn } from "../../domain/identity/two-factor";
import { cardKeysOrNull, confirmCode } from "./money-guards";
import { clientOf, limiterNetworkOf } from "../../domain/identity/client";
import { finishRecovery, startRecovery } from "../../domain/identity/recovery";
import { serverNow } from "../../clock";
import { sendMail } from "../../mail/send";
import { renderMail } from "../../mail/templates";
import { CODE_RULES } from "../../domain/identity/one-time-codes";
import { localeFromLang } from "../../../locales/languages";
import { codeField, codeRefused, issuedAnswer, sendRefused } from "./code-answers";

const account = text({ max: 20, invalid: "errors.account_invalid" }).pipe(z.string().regex(ACCOUNT_RE, "errors.account_invalid"));
const password = text({ max: PASSWORD_MAX, invalid: "errors.password_invalid", trim: false });

const RegisterBody = z
  .object({
    account,
    password,
    password_confirm: text({ max: PASSWORD_MAX, trim: false }).optional(),
    // The product names this field "confirm password"; older clients send `repassword`.
    repassword: text({ max: PASSWORD_MAX, trim: false }).optional(),
    invite_code: text({ max: 16, invalid: "errors.invite_unknown" }).pipe(z.string().regex(INVITE_CODE_RE, "errors.invite_unknown")),
  })
  .transform((b, ctx) => {
    const confirm = b.password_confirm ?? b.repassword;
    if (confirm === undefined) ctx.addIssue({ code: "custom", message: "errors.incomplete", path: ["password_confirm"] });
    else if (confirm !== b.password) ctx.addIssue({ code: "custom", message: "errors.password_mismatch", path: ["password_confirm"] });
    return { account: b.account, password: b.password, invite_code: b.invite_code };
  });

const LoginBody = z.object({
  account: text({ max: 64, invalid: "errors.login_failed" }),
  password: text({ max: 256, trim: false, invalid: "errors.login_failed" }),
  // The second step of a two-factor sign-in: a six-digit code or a recovery code.
  code: confirmCode,
});

const WalletLoginBody = z.object({
  account: text({ max: 100, invalid: "errors.wallet_message_invalid" }),
  message: text({ max: 2000, trim: false, invalid: "errors.wallet_message_invalid" }),
  signature: text({ max: 200, invalid: "errors.wallet_signature_invalid" }),
  type: z.enum(["eth", "btc"], { error: "errors.wallet_message_invalid" }),
  code: confirmCode,
});

const ResetPasswordBody = z
  .object({
    // Absent only when a wallet account sets its first password (changePassword decides).
    old_password: z.string({ error: "errors.old_password_wrong" }).max(256, "errors.old_password_wrong").default(""),
    new_password: password,
    new_password_confirm: text({ max: PASSWORD_MAX, trim: false }).optional(),
    code: confirmCode,
  })
  .refine((b) => b.new_password_confirm === undefined || b.new_password_confirm === b.new_password, {
    message: "errors.password_mismatch",
    path: ["new_password_confirm"],
  });

/** An account name or an email: which one is told by the "@" (worker/domain/identity/recovery.ts). */
const identifier = text({ max: 254, invalid: "errors.recovery_name_invalid" });
const ForgotStartBody = z.object({ account: identifier });
const ForgotFinishBody = z
  .object({ account: identifier, code: codeField, new_password: password, new_password_confirm: text({ max: PASSWORD_MAX, trim: false }).optional() })
  .refine((b) => b.new_password_confirm === undefined || b.new_password_confirm === b.new_password, { message: "errors.password_mismatch", path: ["new_password_confirm"] });

const InviterBody = z.object({
  invite_code: text({ max: 16, invalid: "errors.invite_unknown" }).pipe(z.string().regex(INVITE_CODE_RE, "errors.invite_unknown")),
});

const LangBody = z.object({
  value: text({ max: 35 }).pipe(z.string().refine((v) => localeFromLang(v) !== null, "errors.invalid_field")),
});

/**
 * The user as the API shows it, with ledger balances (micro-USDT integers and USDT decimal
 * strings). Token only right after login or registration.
 */
export function userInfo(user: User, balances: UserBalances, token?: string, two_factor = false) {
  return {
    id: user.id,
    account: user.account,
    invite_code: user.invite_code,
    invited_with_code: user.invited_with_code,
    lang: user.lang,
    created_at_ms: user.created_at_ms,
    password_changed_at_ms: user.password_changed_at_ms,
    has_password: hasPassword(user),
    /** Two-factor in force: pages then ask for a code where the API needs one. */
    two_factor,
    balance: formatAmount(balances.available_micro),
    locked: formatAmount(balances.locked_micro),
    total: formatAmount(balances.total_micro),
    balance_micro: balances.available_micro,
    locked_micro: balances.locked_micro,
    total_micro: balances.total_micro,
    ...(token ? { token } : {}),
  };
}

export const userApi = new Hono<AppEnv>()
  .post("/register", limitAuthAttempts, async (c) => {
    const body = read(c, RegisterBody);
    const result = await registerUser(c.get("db"), { ...body, lang: c.get("locale"), client: clientOf(c.req.raw.headers) }, Date.now());
    if (result.status !== "ok") throw new ApiError(`errors.${result.status}`);
    if (modeOf(c.env) === "demo") await grantDemoMoney(c.get("db"), result.user.id, Date.now());
    await handOverAtSignIn(c, result.user.id);
    return ok(c, { userinfo: userInfo(result.user, await userBalances(c.get("db"), result.user.id, walletOf(c.env)), result.token) }, "errors.registered");
  })
  .post("/login", limitAuthAttempts, async (c) => {
    const body = read(c, LoginBody);
    const now_ms = Date.now();
    const result = await loginUser(c.get("db"), { ...body, keys: await cardKeysOrNull(c), client: clientOf(c.req.raw.headers) }, now_ms);
    if (result.status === "throttled") throw loginThrottled(result.retry_after_ms);
    if (result.status === "failed") throw new ApiError("errors.login_failed");
    // The password was right, but nothing usable is issued before the second factor.
    if (result.status === "need_2fa") throw new ApiError("errors.two_factor_needed", 200, {}, { need_2fa: true });
    await handOverAtSignIn(c, result.user.id);
    // A sign-in from a device not seen before wrote a notice: the badge and the push hear it.
    await afterResponse(c, deliverNotices(c.env, [result.user.id], now_ms));
    const two_factor = await twoFactorOn(c.get("db"), result.user.id);
    return ok(c, { userinfo: userInfo(result.user, await userBalances(c.get("db"), result.user.id, walletOf(c.env)), result.token, two_factor) }, "errors.logged_in");
  })
  .get("/nonce", limitAuthAttempts, async (c) => ok(c, await issueNonce(c.get("db"), Date.now())))
  .post("/loginByAddr", limitAuthAttempts, async (c) => {
    const body = read(c, WalletLoginBody);
    const url = new URL(c.req.url);
    const input = { kind: body.type, account: body.account, message: body.message, signature: body.signature, lang: c.get("locale"), code: body.code, keys: await cardKeysOrNull(c), client: clientOf(c.req.raw.headers) };
    const now_ms = Date.now();
    const result = await walletLogin(c.get("db"), input, { domain: url.host, origin: url.origin, now_ms });
    if (result.status === "throttled") throw loginThrottled(result.retry_after_ms);
    if (result.status === "need_2fa") throw new ApiError("errors.two_factor_needed", 200, {}, { need_2fa: true });
    if (result.status === "code_wrong") throw new ApiError("errors.two_factor_code_wrong");
    if (result.status !== "ok") throw new ApiError(`errors.wallet_${result.status}`);
    if (result.created && modeOf(c.env) === "demo") await grantDemoMoney(c.get("db"), result.user.id, Date.now());
    await handOverAtSignIn(c, result.user.id);
    // A sign-in from a device not seen before wrote a notice: the badge and the push hear it.
    await afterResponse(c, deliverNotices(c.env, [result.user.id], now_ms));
    const two_factor = await twoFactorOn(c.get("db"), result.user.id);
    return ok(c, { userinfo: userInfo(result.user, await userBalances(c.get("db"), result.user.id, walletOf(c.env)), result.token, two_factor) }, "errors.logged_in");
  })
  .post("/logout", requireUser, async (c) => {
    await revokeSession(c.get("db"), c.get("session_token_hash"), Date.now());
    await sessionsEnded(c.env, c.get("db"), c.get("user").id, { token_hash: c.get("session_token_hash") });
    return ok(c, null, "errors.logged_out");
  })
  .post("/user", requireUser, async (c) => {
    const id = c.get("user").id;
    const [balances, two_factor, pseudonym] = await Promise.all([userBalances(c.get("db"), id, walletOf(c.env)), twoFactorOn(c.get("db"), id), logSequencer(c.env).pseudonym(id)]);
    // The name the transparency log gives this account (its leaves carry nothing else of the user).
    return ok(c, { ...userInfo(c.get("user"), balances, undefined, two_factor), pseudonym });
  })
  // The old password is a guess like a sign-in's: the account's throttle and the network's limiter (decision 113).
  .post("/reset_login_pwd", requireUser, limitAuthAttempts, async (c) => {
    const body = read(c, ResetPasswordBody);
    const input = { user_id: c.get("user").id, old_password: body.old_password, new_password: body.new_password, code: body.code, keep_token_hash: c.get("session_token_hash") };
    // With two-factor on, a session and the old password are not enough to take the account.
    const result = await changePassword(c.get("db"), await cardKeysOrNull(c), input, Date.now());
    if (result.status === "throttled") throw loginThrottled(result.retry_after_ms);
    if (result.status === "code_required" || result.status === "code_wrong") throw new ApiError(`errors.two_factor_${result.status}`);
    if (result.status !== "ok") throw new ApiError(`errors.${result.status}`);
    // The other sessions just ended: no hub may place another order under them, their pages close.
    await sessionsEnded(c.env, c.get("db"), c.get("user").id, { all_but: c.get("session_token_hash") });
    return ok(c, null, "errors.password_changed");
  })
  // Forgot password (decision 138): the same answer whether or not the account exists; the
  // code goes to its verified email only, after the answer.
  .post("/forgot/start", limitAuthAttempts, async (c) => {
    const { account } = read(c, ForgotStartBody);
    const db = c.get("db");
    const now_ms = await serverNow(c.env, db);
    const { issued, target } = await startRecovery(db, { identifier: account, network: limiterNetworkOf(c.req.header("cf-connecting-ip")) }, now_ms);
    if (issued.status !== "issued") throw sendRefused(issued);
    if (target) {
      const locale = localeFromLang(target.lang) ?? c.get("locale");
      const mail = renderMail("code_reset_password", locale, { code: issued.code, account: target.account, minutes: CODE_RULES.ttl_ms / 60_000 });
      await afterResponse(c, sendMail(c.env, db, target.email, mail, now_ms));
    }
    return ok(c, issuedAnswer(issued.retry_after_ms), "errors.recovery_sent");
  })
  .post("/forgot/finish", limitAuthAttempts, async (c) => {
    const body = read(c, ForgotFinishBody);
    const db = c.get("db");
    const now_ms = await serverNow(c.env, db);
    const result = await finishRecovery(db, { identifier: body.account, code: body.code, new_password: body.new_password, client: clientOf(c.req.raw.headers) }, now_ms);
    if (result.status === "password_invalid") throw new ApiError("errors.password_invalid");
    if (result.status !== "ok") throw codeRefused(result);
    // Every session just ended: no hub may place another order under them, their pages close.
    await sessionsEnded(c.env, db, result.user.id, { all: true });
    // The notice reaches the centre, the push and the verified email.
    await afterResponse(c, deliverNotices(c.env, [result.user.id], now_ms));
    return ok(c, null, "errors.password_recovered");
  })
  // A wallet account names its inviter once, after its first sign-in (decision 084).
  .post("/set_inviter", requireUser, async (c) => {
    const { invite_code } = read(c, InviterBody);
    const result = await setInviterLater(c.get("db"), c.get("user").id, invite_code);
    if (result.status !== "ok") throw new ApiError(`errors.${result.status}`);
    return ok(c, null, "errors.inviter_saved");
  })
  .post("/lang", requireUser, async (c) => {
    const { value } = read(c, LangBody);
    const locale = localeFromLang(value)!;
    await setUserLanguage(c.get("db"), c.get("user").id, locale);
    c.set("locale", locale);
    return ok(c, { lang: locale, code: LANGUAGES.find((l) => l.key === locale)!.code }, "errors.language_saved");
  });
