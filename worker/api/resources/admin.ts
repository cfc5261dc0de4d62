/**
 * `/api/admin/*`: the operator console's API. Everything but login and enrolment needs an
 * operator session with its second factor proven; the money routes also a recent confirmation
 * (worker/api/middleware/step-up.ts).
 */
import { and, count, eq, gt, isNull } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { safeImage, safeLink } from "../../domain/content/links";
import { sessions, users, operators } from "../../db/schema";
import { auditInsert, listAudit } from "../../domain/audit/log";
import { createSlide, getContacts, listSlides, updateContacts, updateSlide } from "../../domain/content/site";
import { loginOperator } from "../../domain/identity/operators";
import { beginOperatorSetup, enableOperatorTwoFactor, STEP_UP_TTL_MS, stepUpOperator } from "../../domain/identity/operator-two-factor";
import { revokeSession, SESSION_POLICY } from "../../domain/identity/session";
import { requireEnrollingOperator, requireOperator } from "../middleware/auth";
import { cardKeysOrNull, confirmCode } from "./money-guards";
import { ApiError, loginThrottled, ok, read } from "../envelope";
import { int, optionalText, pagination, text } from "../fields";
import type { AppEnv } from "../types";
import { usdt } from "../present";
import { serverNow } from "../../clock";
import { earnFigures } from "../../domain/earn/holdings";
import { limitAuthAttempts } from "../middleware/rate-limit";

const LoginBody = z.object({
  account: text({ max: 64, invalid: "errors.login_failed" }),
  password: text({ max: 256, trim: false, invalid: "errors.login_failed" }),
  code: confirmCode,
});
const CodeBody = z.object({ code: text({ max: 32, invalid: "errors.two_factor_code_wrong" }) });
const Reason = z.object({ reason: text({ max: 500, invalid: "errors.reason_required" }) });
const ContactsBody = Reason.extend({
  wechat: optionalText(100).default(""),
  mobile: optionalText(100).default(""),
  email: optionalText(200).default(""),
  hours: optionalText(200).default(""),
});
const SlideBody = Reason.extend({
  title: text({ max: 100 }),
  // Only a path on this site: the pages' CSP loads no image from elsewhere (decision 143).
  image_url: text({ max: 500 }).pipe(z.string().refine((v) => safeImage(v) !== null, "errors.banner_image_not_ours")),
  // Only our own paths or https (worker/domain/content/links.ts): never `javascript:` or another site by `//`.
  link: optionalText(500)
    .default("")
    .pipe(z.string().refine((v) => v === "" || safeLink(v) !== null, "errors.invalid_field")),
  sort: int({ min: 0, max: 1000, fallback: 0 }),
  enabled: z.preprocess((v) => v === true || v === "1" || v === "on" || v === "true", z.boolean()),
});
const AuditQuery = z.object({ ...pagination, action: optionalText(50) });

export const adminApi = new Hono<AppEnv>()
  .post("/login", limitAuthAttempts, async (c) => {
    const body = read(c, LoginBody);
    const db = c.get("db");
    const now_ms = Date.now();
    const result = await loginOperator(db, { ...body, keys: await cardKeysOrNull(c) }, now_ms, await serverNow(c.env, db));
    if (result.status === "throttled") throw loginThrottled(result.retry_after_ms);
    if (result.status === "failed") throw new ApiError("errors.login_failed");
    // The password was right; nothing is issued before the code (decision 117).
    if (result.status === "need_2fa") throw new ApiError("errors.two_factor_needed", 200, {}, { need_2fa: true });
    await auditInsert(db, { operator_id: result.operator.id, action: "operator.login" }, now_ms);
    // `enrolled` false: this session can only set up a key (`/2fa/setup`, `/2fa/enable`).
    return ok(c, { token: result.token, enrolled: result.enrolled, operator: { id: result.operator.id, account: result.operator.account } }, "errors.logged_in");
  })
  // Enrolment: the only routes an operator without a key reaches (decision 117).
  .use("/2fa/*", requireEnrollingOperator)
  .post("/2fa/setup", async (c) => {
    const r = await beginOperatorSetup(c.get("db"), await cardKeysOrNull(c), c.get("operator"), Date.now());
    if (r.status !== "ok") throw new ApiError("errors.two_factor_already_on");
    return ok(c, { secret: r.secret, otpauth_url: r.otpauth_url });
  })
  .post("/2fa/enable", async (c) => {
    const { code } = read(c, CodeBody);
    const db = c.get("db");
    const now_ms = Date.now();
    const session = { token_hash: c.get("session_token_hash"), step_up_at_ms: await serverNow(c.env, db) };
    const r = await enableOperatorTwoFactor(db, await cardKeysOrNull(c), c.get("operator"), session, code, now_ms);
    if (r.status === "throttled") throw loginThrottled(r.retry_after_ms);
    if (r.status !== "ok") throw new ApiError(`errors.two_factor_${r.status}`);
    await auditInsert(db, { operator_id: c.get("operator").id, action: "operator.two_factor_enrolled" }, now_ms);
    return ok(c, null, "errors.two_factor_enabled");
  })
  // An enrolling operator may leave too.
  .post("/logout", requireEnrollingOperator, async (c) => {
    const db = c.get("db");
    const now_ms = Date.now();
    await db.batch([revokeSession(db, c.get("session_token_hash"), now_ms), auditInsert(db, { operator_id: c.get("operator").id, action: "operator.logout" }, now_ms)]);
    return ok(c, null, "errors.logged_out");
  })
  .use("*", requireOperator)
  // A fresh confirmation for the money routes (decision 118), for this session only.
  .post("/step_up", async (c) => {
    const { code } = read(c, CodeBody);
    const db = c.get("db");
    const step_up_at_ms = await serverNow(c.env, db);
    const r = await stepUpOperator(db, await cardKeysOrNull(c), c.get("operator"), { token_hash: c.get("session_token_hash"), step_up_at_ms }, code, Date.now());
    if (r.status === "throttled") throw loginThrottled(r.retry_after_ms);
    if (r.status !== "ok") throw new ApiError(`errors.two_factor_${r.status}`);
    return ok(c, { step_up_until_ms: step_up_at_ms + STEP_UP_TTL_MS }, "errors.step_up_done");
  })
  .on(["GET", "POST"], "/me", async (c) => ok(c, { id: c.get("operator").id, account: c.get("operator").account }))
  .on(["GET", "POST"], "/overview", async (c) => {
    const db = c.get("db");
    const now_ms = Date.now();
    const [[u], [today], [live], [ops]] = await db.batch([
      db.select({ n: count() }).from(users),
      db.select({ n: count() }).from(users).where(gt(users.created_at_ms, now_ms - 24 * 3600_000)),
      db
        .select({ n: count() })
        .from(sessions)
        .where(and(eq(sessions.kind, "user"), isNull(sessions.revoked_at_ms), gt(sessions.absolute_expires_at_ms, now_ms), gt(sessions.last_seen_at_ms, now_ms - SESSION_POLICY.user.idle_ms))),
      db.select({ n: count() }).from(operators),
    ]);
    // Earn figures run on the earn clock (a test deployment may move it), like the accrual.
    const earn = await earnFigures(db, await serverNow(c.env, db));
    return ok(c, {
      users: u.n,
      users_24h: today.n,
      active_sessions: live.n,
      operators: ops.n,
      earn_locked: usdt(earn.locked_pool_micro),
      earn_locked_micro: earn.locked_pool_micro,
      earn_paid_today: usdt(earn.paid_today_micro),
      earn_paid_today_micro: earn.paid_today_micro,
      earn_due_24h: usdt(earn.due_24h_micro),
      earn_due_24h_micro: earn.due_24h_micro,
    });
  })
  .on(["GET", "POST"], "/audit", async (c) => {
    const q = read(c, AuditQuery);
    const { items, total } = await listAudit(c.get("db"), { page: q.page_no, rows: q.row, action: q.action });
    return ok(c, { items, total, page_no: q.page_no, row: q.row });
  })
  .on(["GET", "POST"], "/content", async (c) => {
    const db = c.get("db");
    return ok(c, { contacts: await getContacts(db), slides: await listSlides(db, { only_enabled: false }) });
  })
  .post("/contacts", async (c) => {
    const body = read(c, ContactsBody);
    await updateContacts(c.get("db"), c.get("operator").id, { wechat: body.wechat, mobile: body.mobile, email: body.email, hours: body.hours }, body.reason, Date.now());
    return ok(c, null, "errors.saved");
  })
  .post("/slides", async (c) => {
    const { reason, ...slide } = read(c, SlideBody);
    const created = await createSlide(c.get("db"), c.get("operator").id, slide, reason, Date.now());
    return ok(c, { id: created.id }, "errors.saved");
  })
  .post("/slides/:id", async (c) => {
    const id = Number(c.req.param("id"));
    if (!Number.isSafeInteger(id) || id < 1) throw new ApiError("errors.not_found", 404);
    const { reason, ...slide } = read(c, SlideBody);
    const result = await updateSlide(c.get("db"), c.get("operator").id, id, slide, reason, Date.now());
    if (result.status === "not_found") throw new ApiError("errors.not_found", 404);
    return ok(c, null, "errors.saved");
  });
