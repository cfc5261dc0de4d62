/**
 * Profile completion. `/api/user/`: `infos` (send or correct), `cxinfos` (read back with the
 * review status). `/api/admin/`: `profiles` (the review queue), `profiles/:user_id/verify`
 * and `/reject`.
 */
import { Hono } from "hono";
import { z } from "zod";
import { listProfiles, readProfile, rejectProfile, submitProfile, verifyProfile, type Profile } from "../../domain/profiles/profiles";
import { requireOperator, requireUser } from "../../middleware/auth";
import { ApiError, ok, read } from "../envelope";
import { int, pagination, text } from "../fields";
import type { AppEnv } from "../types";

/** Lengths here only bound the input; the real rules are worker/domain/profiles/rules.ts. */
const ProfileBody = z.object({
  name: text({ max: 200, invalid: "errors.name_invalid" }),
  phone: text({ max: 40, invalid: "errors.phone_invalid" }),
  email: text({ max: 254, invalid: "errors.email_invalid" }),
  id_photo: text({ max: 200, invalid: "errors.id_photo_unknown" }),
  signature: text({ max: 200, invalid: "errors.signature_unknown" }),
});
/** The version the operator saw (`submitted_at_ms` from the queue); without it, the current one. */
const Seen = z.object({ submitted_at_ms: int({ min: 0, max: Number.MAX_SAFE_INTEGER }).optional() });
const Reason = Seen.extend({ reason: text({ max: 500, invalid: "errors.reason_required" }) });
const Queue = z.object({ status: z.enum(["submitted", "verified", "rejected", "all"], { error: "errors.invalid_field" }).default("submitted"), ...pagination });

/** The user's view: images as the same `/files/<id>` urls the upload answered. */
export function profileOut(p: Profile | undefined) {
  if (!p) return { name: "", phone: "", email: "", id_photo: "", signature: "", status: "incomplete" as const, reject_reason: "" };
  return { name: p.name, phone: p.phone, email: p.email, id_photo: `/files/${p.id_photo_id}`, signature: `/files/${p.signature_id}`, status: p.status, reject_reason: p.reject_reason };
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
    const r = await submitProfile(c.get("db"), c.get("user").id, read(c, ProfileBody), Date.now());
    if (r.status !== "ok") throw new ApiError(`errors.${r.status}`);
    return ok(c, profileOut(r.profile), "errors.profile_submitted");
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
