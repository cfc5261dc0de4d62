/** `/api/admin/*`: the operator console's API. Everything but login needs an operator session. */
import { and, count, eq, gt, isNull } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { safeLink } from "../../domain/content/links";
import { sessions, users, operators } from "../../db/schema";
import { auditInsert, listAudit } from "../../domain/audit/log";
import { createSlide, getContacts, listSlides, updateContacts, updateSlide } from "../../domain/content/site";
import { loginOperator } from "../../domain/identity/operators";
import { revokeSession, SESSION_POLICY } from "../../domain/identity/session";
import { requireOperator } from "../../middleware/auth";
import { ApiError, loginThrottled, ok, read } from "../envelope";
import { int, optionalText, pagination, text } from "../fields";
import type { AppEnv } from "../types";
import { usdt } from "../present";
import { serverNow } from "../../clock";
import { earnFigures } from "../../domain/earn/holdings";
import { limitAuthAttempts } from "../../middleware/rate-limit";

const LoginBody = z.object({ account: text({ max: 64, invalid: "errors.login_failed" }), password: text({ max: 256, trim: false, invalid: "errors.login_failed" }) });
const Reason = z.object({ reason: text({ max: 500, invalid: "errors.reason_required" }) });
const ContactsBody = Reason.extend({
  wechat: optionalText(100).default(""),
  mobile: optionalText(100).default(""),
  email: optionalText(200).default(""),
  hours: optionalText(200).default(""),
});
const SlideBody = Reason.extend({
  title: text({ max: 100 }),
  // Only our own paths or https (worker/domain/content/links.ts): never `javascript:` or another site by `//`.
  image_url: text({ max: 500 }).pipe(z.string().refine((v) => safeLink(v) !== null, "errors.invalid_field")),
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
    const now_ms = Date.now();
    const result = await loginOperator(c.get("db"), body, now_ms);
    if (result.status === "throttled") throw loginThrottled(result.retry_after_ms);
    if (result.status === "failed") throw new ApiError("errors.login_failed");
    await auditInsert(c.get("db"), { operator_id: result.operator.id, action: "operator.login" }, now_ms);
    return ok(c, { token: result.token, operator: { id: result.operator.id, account: result.operator.account } }, "errors.logged_in");
  })
  .use("*", requireOperator)
  .post("/logout", async (c) => {
    const db = c.get("db");
    const now_ms = Date.now();
    await db.batch([revokeSession(db, c.get("session_token_hash"), now_ms), auditInsert(db, { operator_id: c.get("operator").id, action: "operator.logout" }, now_ms)]);
    return ok(c, null, "errors.logged_out");
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
