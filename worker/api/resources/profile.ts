/**
 * Profile completion. `/api/user/`: `infos` (send or correct), `cxinfos` (read back with the
 * review status), `contact/send` and `contact/confirm` (verify the email or phone by a code,
 * decision 138). `/api/admin/`: `profiles` (the review queue), `profiles/:user_id/verify`
 * and `/reject`.
 */
import { Hono } from "hono";
import { z } from "zod";
import { listProfiles, readProfile, rejectProfile, submitProfile, verifyProfile, type Profile } from "../../domain/profiles/profiles";
import { requireOperator, requireUser } from "../middleware/auth";
import { ApiError, ok, read } from "../envelope";
import { int, pagination, text } from "../fields";
import type { AppEnv } from "../types";
import { confirmContact, CONTACT_CHANNELS, sendContactCode, type ContactChannel } from "../../domain/profiles/contacts";
import { CODE_RULES } from "../../domain/identity/one-time-codes";
import { limiterNetworkOf } from "../../domain/identity/client";
import { serverNow } from "../../clock";
import { sendMail } from "../../mail/send";
import { smsSenderOf } from "../../mail/sms";
import { renderMail, renderSms } from "../../mail/templates";
import { afterResponse } from "../idempotency";
import { logError } from "../../observability/log";
import { codeField, codeRefused, issuedAnswer, sendRefused } from "./code-answers";
import type { Context } from "hono";

/** Lengths here only bound the input; the real rules are worker/domain/profiles/rules.ts. */
const ProfileBody = z.object({
  name: text({ max: 200, invalid: "errors.name_invalid" }),
  phone: text({ max: 40, invalid: "errors.phone_invalid" }),
  email: text({ max: 254, invalid: "errors.email_invalid" }),
  id_photo: text({ max: 200, invalid: "errors.id_photo_unknown" }),
  signature: text({ max: 200, invalid: "errors.signature_unknown" }),
});
const Channel = z.object({ channel: z.enum(CONTACT_CHANNELS, { error: "errors.invalid_field" }) });
const Confirm = Channel.extend({ code: codeField });

/** The version the operator saw (`submitted_at_ms` from the queue); without it, the current one. */
const Seen = z.object({ submitted_at_ms: int({ min: 0, max: Number.MAX_SAFE_INTEGER }).optional() });
const Reason = Seen.extend({ reason: text({ max: 500, invalid: "errors.reason_required" }) });
const Queue = z.object({ status: z.enum(["submitted", "verified", "rejected", "all"], { error: "errors.invalid_field" }).default("submitted"), ...pagination });

/** The user's view: images as the same `/files/<id>` urls the upload answered. */
export function profileOut(p: Profile | undefined) {
  if (!p) return { name: "", phone: "", email: "", id_photo: "", signature: "", status: "incomplete" as const, reject_reason: "", email_verified: false, phone_verified: false };
  return {
    name: p.name,
    phone: p.phone,
    email: p.email,
    id_photo: `/files/${p.id_photo_id}`,
    signature: `/files/${p.signature_id}`,
    status: p.status,
    reject_reason: p.reject_reason,
    // Proven by a code (decision 138): only a verified email receives recovery codes and notices.
    email_verified: p.email_verified_at_ms !== null,
    phone_verified: p.phone_verified_at_ms !== null,
  };
}

/** The old verified email hears that an address of the account changed, in the user's language. */
async function tellOldAddress(c: Context<AppEnv>, to: string, changed: { email?: string; phone?: string }, now_ms: number) {
  const account = c.get("user").account;
  const work = (async () => {
    if (changed.email) await sendMail(c.env, c.get("db"), to, renderMail("email_changed", c.get("locale"), { account }), now_ms);
    if (changed.phone) await sendMail(c.env, c.get("db"), to, renderMail("phone_changed", c.get("locale"), { account }), now_ms);
  })();
  await afterResponse(c, work);
}

/** Sends the code by mail or SMS; in production without an SMS provider the phone cannot be verified. */
async function deliverCode(c: Context<AppEnv>, channel: ContactChannel, to: string, code: string, now_ms: number) {
  const minutes = CODE_RULES.ttl_ms / 60_000;
  if (channel === "email") return afterResponse(c, sendMail(c.env, c.get("db"), to, renderMail("code_verify_email", c.get("locale"), { code, minutes }), now_ms));
  const sms = smsSenderOf(c.env, c.get("db"), now_ms);
  if (!sms) throw new ApiError("errors.sms_unavailable");
  await afterResponse(c, sms.send(to, renderSms(c.get("locale"), { code, minutes })).catch((err: unknown) => logError("sms.send_failed", { err })));
}

function adminProfileOut(p: Profile & { account: string }) {
  return { user_id: p.user_id, account: p.account, ...profileOut(p), submitted_at_ms: p.submitted_at_ms, decided_at_ms: p.decided_at_ms };
}

const pathUserId = (raw: string) => {
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new ApiError("errors.not_found", 404);
  return n;
};

export const profileApi = new Hono<AppEnv>()
  .use("*", requireUser)
  .post("/infos", async (c) => {
    const now_ms = Date.now();
    const r = await submitProfile(c.get("db"), c.get("user").id, read(c, ProfileBody), now_ms);
    if (r.status !== "ok") throw new ApiError(`errors.${r.status}`);
    if (r.notify) await tellOldAddress(c, r.notify, r.changed, now_ms);
    return ok(c, profileOut(r.profile), "errors.profile_submitted");
  })
  .post("/contact/send", async (c) => {
    const { channel } = read(c, Channel);
    const db = c.get("db");
    const now_ms = await serverNow(c.env, db);
    // Before any code is made: production has no SMS provider yet (decision 139).
    if (channel === "phone" && !smsSenderOf(c.env, db, now_ms)) throw new ApiError("errors.sms_unavailable");
    const r = await sendContactCode(db, c.get("user").id, channel, limiterNetworkOf(c.req.header("cf-connecting-ip")), now_ms);
    if (r.status === "contact_missing" || r.status === "contact_verified") throw new ApiError(`errors.${r.status}`);
    if (r.status !== "issued") throw sendRefused(r);
    await deliverCode(c, channel, r.address, r.code, now_ms);
    return ok(c, issuedAnswer(r.retry_after_ms), channel === "email" ? "errors.code_sent_email" : "errors.code_sent_phone");
  })
  .post("/contact/confirm", async (c) => {
    const { channel, code } = read(c, Confirm);
    const db = c.get("db");
    const r = await confirmContact(db, c.get("user").id, channel, code, await serverNow(c.env, db));
    if (r.status === "contact_missing" || r.status === "contact_in_use") throw new ApiError(`errors.${r.status}`);
    if (r.status !== "ok") throw codeRefused(r);
    return ok(c, profileOut(await readProfile(db, c.get("user").id)), channel === "email" ? "errors.email_verified" : "errors.phone_verified");
  })
  .on(["GET", "POST"], "/cxinfos", async (c) => ok(c, profileOut(await readProfile(c.get("db"), c.get("user").id))));

export const adminProfilesApi = new Hono<AppEnv>()
  .use("*", requireOperator)
  .on(["GET", "POST"], "/profiles", async (c) => {
    const q = read(c, Queue);
    const { items, total } = await listProfiles(c.get("db"), q.status, q);
    return ok(c, { items: items.map(adminProfileOut), total });
  })
  .post("/profiles/:user_id/verify", async (c) => {
    const { submitted_at_ms } = read(c, Seen);
    const r = await verifyProfile(c.get("db"), c.get("operator").id, pathUserId(c.req.param("user_id")), submitted_at_ms, Date.now());
    if (r.status === "not_found") throw new ApiError("errors.not_found", 404);
    if (r.status !== "ok") throw new ApiError(`errors.${r.status}`);
    return ok(c, profileOut(r.profile), "errors.profile_verified_ok");
  })
  .post("/profiles/:user_id/reject", async (c) => {
    const { reason, submitted_at_ms } = read(c, Reason);
    const r = await rejectProfile(c.get("db"), c.get("operator").id, pathUserId(c.req.param("user_id")), reason, submitted_at_ms, Date.now());
    if (r.status === "not_found") throw new ApiError("errors.not_found", 404);
    if (r.status !== "ok") throw new ApiError(`errors.${r.status}`);
    return ok(c, profileOut(r.profile), "errors.rejected");
  });
