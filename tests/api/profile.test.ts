import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { audit_log, profiles } from "../../worker/db/schema";
import { loanGate } from "../../worker/domain/profiles/gate";
import { userCookie } from "../../worker/session-cookie";
import { call, db, newUser, page, seed } from "./helpers";
import { operatorCookieFor } from "./money/cookies";
import { operatorToken, upload } from "./money/helpers";

beforeAll(() => seed());

type User = Awaited<ReturnType<typeof newUser>>;

/** A user with their own ID photo and signature uploaded, and a valid profile to send. */
async function userWithImages() {
  const u = await newUser();
  const photo = (await upload(u.token)).data.url;
  const signature = (await upload(u.token, undefined, "signature.png")).data.url;
  const body = { name: "  Ana   María ", phone: "+34 612-345-678", email: "ana.maria@Example.ES", id_photo: photo, signature };
  return { ...u, photo, signature, body };
}

const save = (u: User, body: Record<string, unknown>, lang?: string) => call("/api/user/infos", body, { token: u.token, headers: lang ? { lang } : {} });
const read = (u: User) => call("/api/user/cxinfos", {}, { token: u.token });
const rowOf = (user_id: number) => db.query.profiles.findFirst({ where: eq(profiles.user_id, user_id) });
const auditFor = (user_id: number, action: string) =>
  db.select().from(audit_log).where(and(eq(audit_log.action, action), eq(audit_log.target, `user:${user_id}`))).orderBy(sql`id`);

describe("/api/user/infos and cxinfos", () => {
  it("a fresh user's profile is incomplete, and the loan gate says so", async () => {
    const u = await newUser();
    const r = await read(u);
    expect(r.code).toBe(1);
    expect(r.data).toEqual({ name: "", phone: "", email: "", id_photo: "", signature: "", status: "incomplete", reject_reason: "", email_verified: false, phone_verified: false });
    expect(await loanGate(db, u.id)).toEqual({ status: "profile_incomplete" });
  });

  it("saves the tidied fields as submitted and reads them back with the upload urls", async () => {
    const u = await userWithImages();
    const r = await save(u, u.body);
    expect(r.code).toBe(1);
    expect(r.msg).toBe("Profile sent for review");
    const expected = { name: "Ana María", phone: "+34612345678", email: "ana.maria@example.es", id_photo: u.photo, signature: u.signature, status: "submitted", reject_reason: "", email_verified: false, phone_verified: false };
    expect(r.data).toEqual(expected);
    expect((await read(u)).data).toEqual(expected);
    expect(await loanGate(db, u.id)).toEqual({ status: "ok" });
  });

  it("takes a form post as well as JSON", async () => {
    const u = await userWithImages();
    const r = await call("/api/user/infos", new URLSearchParams(u.body).toString(), { token: u.token, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(r.code).toBe(1);
    expect((await rowOf(u.id))?.status).toBe("submitted");
  });

  it("refuses a bad phone, email or name with a localized message and writes nothing", async () => {
    const u = await userWithImages();
    const cases: [Record<string, string>, string, string, string][] = [
      [{ phone: "612 345 678" }, "phone_invalid", "de", "internationalen Format"],
      [{ phone: "+34 (612) 345678" }, "phone_invalid", "zh", "国际格式"],
      [{ email: "ana@example" }, "email_invalid", "ja", "メールアドレス"],
      [{ email: "ana maria@example.es" }, "email_invalid", "en", "valid email"],
      [{ name: "A" }, "name_invalid", "vi", "họ tên"],
    ];
    for (const [change, error, lang, words] of cases) {
      const r = await save(u, { ...u.body, ...change }, lang);
      expect(r.code, JSON.stringify(change)).toBe(0);
      expect(r.data.error).toBe(error);
      expect(r.msg).toContain(words);
    }
    const missing = await save(u, { ...u.body, email: "" });
    expect(missing.data.error).toBe("incomplete");
    expect(await rowOf(u.id)).toBeUndefined();
  });

  it("refuses another user's upload (photo or signature) or a made-up one, and writes nothing", async () => {
    const u = await userWithImages();
    const other = await userWithImages();
    const photo = await save(u, { ...u.body, id_photo: other.photo }, "es");
    expect(photo.data.error).toBe("id_photo_unknown");
    expect(photo.msg).toBe("Vuelva a subir la foto de su documento de identidad.");
    const signature = await save(u, { ...u.body, signature: other.signature }, "th");
    expect(signature.data.error).toBe("signature_unknown");
    expect(signature.msg).toBe("กรุณาลงลายมือชื่ออีกครั้ง");
    expect((await save(u, { ...u.body, signature: `/files/${"0".repeat(32)}` })).data.error).toBe("signature_unknown");
    expect((await save(u, { ...u.body, id_photo: "https://evil.example/a.png" })).data.error).toBe("id_photo_unknown");
    expect(await rowOf(u.id)).toBeUndefined();
  });

  it("wrongly typed input gets an envelope error, not a 500", async () => {
    const u = await userWithImages();
    const r = await save(u, { ...u.body, phone: { $gt: "" } });
    expect(r.status).toBeLessThan(500);
    expect(r.code).toBe(0);
    expect((await call("/api/user/infos", u.body)).status).toBe(401);
  });
});

describe("review by an operator", () => {
  it("reject with a reason → rejected with it, gate blocks; resubmit → submitted, gate ok; verify → verified and read-only; each decision audited", async () => {
    const op = await operatorToken();
    const u = await userWithImages();
    expect((await save(u, u.body)).code).toBe(1);

    const queue = await call("/api/admin/profiles", { status: "submitted", row: 100 }, { token: op });
    const listed = queue.data.items.find((p: { user_id: number }) => p.user_id === u.id);
    expect(listed).toMatchObject({ account: u.account, name: "Ana María", phone: "+34612345678", id_photo: u.photo, signature: u.signature, status: "submitted" });
    expect(queue.data.total).toBeGreaterThanOrEqual(1);

    expect((await call(`/api/admin/profiles/${u.id}/reject`, {}, { token: op })).data.error).toBe("incomplete");
    expect((await rowOf(u.id))?.status).toBe("submitted");
    const rejected = await call(`/api/admin/profiles/${u.id}/reject`, { reason: "The ID photo is blurred" }, { token: op });
    expect(rejected.code).toBe(1);
    expect(await read(u).then((r) => r.data)).toMatchObject({ status: "rejected", reject_reason: "The ID photo is blurred" });
    expect(await loanGate(db, u.id)).toEqual({ status: "profile_rejected" });
    const rejects = await auditFor(u.id, "profile.reject");
    expect(rejects).toHaveLength(1);
    expect(rejects[0].reason).toBe("The ID photo is blurred");

    // Deciding again changes nothing and records nothing.
    expect((await call(`/api/admin/profiles/${u.id}/verify`, {}, { token: op })).data.error).toBe("profile_not_submitted");
    expect(await auditFor(u.id, "profile.verify")).toHaveLength(0);
    expect((await rowOf(u.id))?.status).toBe("rejected");

    const photo2 = (await upload(u.token)).data.url;
    const again = await save(u, { ...u.body, id_photo: photo2 });
    expect(again.data).toMatchObject({ status: "submitted", reject_reason: "", id_photo: photo2 });
    expect(await loanGate(db, u.id)).toEqual({ status: "ok" });

    const verified = await call(`/api/admin/profiles/${u.id}/verify`, {}, { token: op });
    expect(verified.code).toBe(1);
    expect(verified.data.status).toBe("verified");
    expect(await auditFor(u.id, "profile.verify")).toHaveLength(1);
    expect(await loanGate(db, u.id)).toEqual({ status: "ok" });

    const locked = await save(u, { ...u.body, name: "Someone Else" }, "pt");
    expect(locked.data.error).toBe("profile_verified");
    expect(locked.msg).toContain("verificado");
    expect((await read(u)).data).toMatchObject({ name: "Ana María", status: "verified" });
    expect((await call(`/api/admin/profiles/${u.id}/reject`, { reason: "late" }, { token: op })).data.error).toBe("profile_not_submitted");
  });

  it("two operators deciding at once give one decision and one audit entry", async () => {
    const op = await operatorToken();
    const u = await userWithImages();
    await save(u, u.body);
    const [a, b] = await Promise.all([
      call(`/api/admin/profiles/${u.id}/verify`, {}, { token: op }),
      call(`/api/admin/profiles/${u.id}/reject`, { reason: "mismatch" }, { token: op }),
    ]);
    expect([a.code, b.code].sort()).toEqual([0, 1]);
    const entries = [...(await auditFor(u.id, "profile.verify")), ...(await auditFor(u.id, "profile.reject"))];
    expect(entries).toHaveLength(1);
  });

  it("a decision on a version the user has since corrected is refused; on the version shown it applies", async () => {
    const op = await operatorToken();
    const u = await userWithImages();
    await save(u, u.body);
    const seen = (await rowOf(u.id))!.submitted_at_ms;
    await new Promise((r) => setTimeout(r, 5));
    await save(u, { ...u.body, name: "Ana María López" });
    const stale = await call(`/api/admin/profiles/${u.id}/verify`, { submitted_at_ms: seen }, { token: op, headers: { lang: "de" } });
    expect(stale.data.error).toBe("profile_changed");
    expect(stale.msg).toContain("erneut");
    expect(await auditFor(u.id, "profile.verify")).toHaveLength(0);
    expect((await rowOf(u.id))?.status).toBe("submitted");
    const current = (await rowOf(u.id))!.submitted_at_ms;
    const r = await call(`/api/admin/profiles/${u.id}/reject`, { submitted_at_ms: current, reason: "Name differs from the ID" }, { token: op });
    expect(r.data).toMatchObject({ status: "rejected", name: "Ana María López", reject_reason: "Name differs from the ID" });
  });

  it("unknown profiles and users without a session are refused", async () => {
    const op = await operatorToken();
    const u = await newUser();
    expect((await call(`/api/admin/profiles/${u.id}/verify`, {}, { token: op })).status).toBe(404);
    expect((await call("/api/admin/profiles/abc/verify", {}, { token: op })).status).toBe(404);
    expect((await call("/api/admin/profiles", {}, { token: u.token })).status).toBe(401);
    expect((await call("/api/admin/profiles", { status: "nope" }, { token: op })).data.error).toBe("invalid_field");
  });
});

describe("pages", () => {
  const userCookieOf = async (token: string) => (await userCookie.serialize(token)).split(";")[0];

  it("the profile page shows the fields and the status; the Accounts page links it with its status", async () => {
    const anonymous = await page("/pages/me/sub/improve-info");
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toContain("/pages/user/login");
    const u = await newUser();
    const cookie = await userCookieOf(u.token);
    const res = await page("/pages/me/sub/improve-info", { headers: { cookie } });
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const id of ["profile-form", "profile-name", "profile-phone", "profile-email", "profile-id-photo", "profile-signature-pad", "profile-signature-clear", "profile-submit", "profile-status-note"]) {
      expect(html, id).toContain(`data-testid="${id}"`);
    }
    expect(html).toMatch(/data-status="incomplete" data-testid="profile-status">Not completed</);
    const me = await (await page("/pages/me/index", { headers: { cookie } })).text();
    expect(me).toContain('href="/pages/me/sub/improve-info"');
    expect(me).toMatch(/data-testid="menu-profile"[\s\S]*?Not completed/);
  });

  it("a rejected profile shows the reason and can be sent again; a verified one is read-only", async () => {
    const op = await operatorToken();
    const u = await userWithImages();
    await save(u, u.body);
    await call(`/api/admin/profiles/${u.id}/reject`, { reason: "Signature does not match" }, { token: op });
    const cookie = await userCookieOf(u.token);
    const rejected = await (await page("/pages/me/sub/improve-info", { headers: { cookie } })).text();
    expect(rejected).toContain('data-testid="profile-reject-reason"');
    expect(rejected).toContain("Signature does not match");
    expect(rejected).toContain("Correct and send again");

    await save(u, u.body);
    await call(`/api/admin/profiles/${u.id}/verify`, {}, { token: op });
    const verified = await (await page("/pages/me/sub/improve-info", { headers: { cookie } })).text();
    expect(verified).toMatch(/data-status="verified" data-testid="profile-status"/);
    expect(verified).not.toContain('data-testid="profile-form"');
    expect(verified).toContain('data-testid="profile-signature-image"');
  });

  it("the console queue shows the photo beside the signature with verify and reject", async () => {
    const op = await operatorToken();
    const u = await userWithImages();
    await save(u, u.body);
    const res = await page("/admin/profiles", { headers: { cookie: await operatorCookieFor(op) } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`data-user-id="${u.id}"`);
    expect(html).toContain(`src="${u.photo}"`);
    expect(html).toContain(`src="${u.signature}"`);
    expect(html).toContain('data-testid="verify-profile"');
    expect(html).toContain('data-testid="reject-profile"');
    // Both decisions carry the version the operator is looking at.
    const shown = (await rowOf(u.id))!.submitted_at_ms;
    expect(html.split(`name="submitted_at_ms" value="${shown}"`).length - 1).toBe(2);
  });
});
