import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { audit_log, slides } from "../../worker/db/schema";
import { DEMO } from "../../scripts/seed-demo";
import { translate } from "../../worker/i18n";
import { call, db, operatorLogin, operatorToken, page, seed, testEnv } from "./helpers";

beforeAll(() => seed());

/** An operator session of its own (signed in with a code), for the tests that end it. */
async function freshOperatorToken() {
  const r = await operatorLogin();
  expect(r.code, r.msg).toBe(1);
  return r.data.token as string;
}

describe("operator console API", () => {
  it("every /api/admin route but login needs an operator session", async () => {
    for (const path of ["/api/admin/me", "/api/admin/overview", "/api/admin/audit", "/api/admin/content", "/api/admin/contacts", "/api/admin/slides"]) {
      const r = await call(path, {});
      expect(r.status, path).toBe(401);
      expect(r.code).toBe(0);
    }
  });

  it("a user's token is not an operator session", async () => {
    const u = await call("/api/user/login", DEMO.user);
    expect((await call("/api/admin/overview", {}, { token: u.data.userinfo.token })).status).toBe(401);
  });

  it("an operator's token is not a user session", async () => {
    expect((await call("/api/user/user", {}, { token: await operatorToken() })).status).toBe(401);
  });

  it("wrong operator credentials get the generic message", async () => {
    const r = await call("/api/admin/login", { account: "operator", password: "nope12345" });
    expect(r.code).toBe(0);
    expect(r.data.error).toBe("login_failed");
  });

  it("login and logout are audit-logged with the actor", async () => {
    const token = await freshOperatorToken();
    const audit = await call("/api/admin/audit", { action: "operator." }, { token });
    expect(audit.code).toBe(1);
    expect(audit.data.items[0]).toMatchObject({ operator: "operator", action: "operator.login" });
    expect((await call("/api/admin/logout", {}, { token })).code).toBe(1);
    expect((await call("/api/admin/me", {}, { token })).status).toBe(401);
    const [last] = await db.select().from(audit_log).orderBy(sql`id desc`).limit(1);
    expect(last.action).toBe("operator.logout");
  });

  it("changing contacts needs a reason and records before/after in the audit log", async () => {
    const token = await operatorToken();
    const missing = await call("/api/admin/contacts", { wechat: "x" }, { token });
    expect(missing.code).toBe(0);
    const r = await call("/api/admin/contacts", { wechat: "pl_help", mobile: "+1 555 0199", reason: "new support line" }, { token });
    expect(r.code).toBe(1);
    expect((await call("/api/index/getWechatMobile", undefined, { method: "GET" })).data).toMatchObject({ wechat: "pl_help", mobile: "+1 555 0199" });
    const [entry] = await db.select().from(audit_log).where(eq(audit_log.action, "config.update")).orderBy(sql`id desc`).limit(1);
    expect(entry.reason).toBe("new support line");
    expect(JSON.parse(entry.data_json).after.wechat).toBe("pl_help");
  });

  it("banners: create and hide, both audited; hidden ones leave /api/index/slides", async () => {
    const token = await operatorToken();
    const created = await call("/api/admin/slides", { title: "Promo", image_url: "/banners/2.svg", sort: 9, enabled: "1", reason: "campaign" }, { token });
    expect(created.code).toBe(1);
    const id = created.data.id;
    expect((await call("/api/index/slides")).data.some((s: { id: number }) => s.id === id)).toBe(true);
    const hidden = await call(`/api/admin/slides/${id}`, { title: "Promo", image_url: "/banners/2.svg", sort: 9, enabled: "0", reason: "campaign over" }, { token });
    expect(hidden.code).toBe(1);
    expect((await call("/api/index/slides")).data.some((s: { id: number }) => s.id === id)).toBe(false);
    expect((await db.select().from(slides).where(eq(slides.id, id)))[0].enabled).toBe(0);
    const actions = (await db.select().from(audit_log).where(eq(audit_log.target, `slide:${id}`))).map((a) => a.action);
    expect(actions).toContain("slide.update");
    expect((await call("/api/admin/slides/99999", { title: "x", image_url: "/a.svg", reason: "r" }, { token })).status).toBe(404);
    expect((await call("/api/admin/slides", { title: "x", image_url: "javascript:alert(1)", reason: "r" }, { token })).code).toBe(0);
  });

  it("banner links: our own paths or https only; a script link is refused with the field named", async () => {
    const token = await operatorToken();
    for (const link of ["javascript:alert(document.cookie)", "//evil.example", "/\\evil.example", "data:text/html,x", "http://plain.example"]) {
      const r = await call("/api/admin/slides", { title: "x", image_url: "/banners/1.svg", link, reason: "r" }, { token });
      expect(r, link).toMatchObject({ code: 0, data: { error: "invalid_field" } });
    }
    const ok = await call("/api/admin/slides", { title: "x", image_url: "/banners/1.svg", link: "https://example.com/promo", enabled: "0", reason: "r" }, { token });
    expect(ok.code).toBe(1);
  });

  it("banner images: a path on this site only, as the pages' CSP loads them; elsewhere is refused in the operator's language (decision 143)", async () => {
    const token = await operatorToken();
    const csp = (await page("/pages/user/login")).headers.get("content-security-policy") ?? "";
    expect(csp).toContain("img-src 'self' data: blob:");
    for (const image_url of ["https://cdn.example/a.png", "HTTPS://cdn.example/a.png", "http://cdn.example/a.png", "//evil.example/a.png", "/\\evil.example/a.png", "data:image/png;base64,AAAA", "javascript:alert(1)"]) {
      const r = await call("/api/admin/slides", { title: "x", image_url, enabled: "0", reason: "r" }, { token });
      expect(r, image_url).toMatchObject({ code: 0, data: { error: "banner_image_not_ours", field: "image_url" } });
    }
    const de = await call("/api/admin/slides", { title: "x", image_url: "https://cdn.example/a.png", reason: "r" }, { token, headers: { "accept-language": "de" } });
    expect(de.msg).toBe(translate("de", "errors.banner_image_not_ours"));
    expect(de.msg).not.toBe(translate("en", "errors.banner_image_not_ours"));
    const created = await call("/api/admin/slides", { title: "x", image_url: "/banners/3.svg", enabled: "0", reason: "r" }, { token });
    expect(created.code).toBe(1);
    const changed = await call(`/api/admin/slides/${created.data.id}`, { title: "x", image_url: "https://cdn.example/b.png", enabled: "0", reason: "r" }, { token });
    expect(changed.data.error).toBe("banner_image_not_ours");
  });

  it("the audit log is append-only in the database itself", async () => {
    await operatorToken();
    await expect(testEnv.DB.prepare("UPDATE audit_log SET reason = 'edited'").run()).rejects.toThrow(/append-only/);
    await expect(testEnv.DB.prepare("DELETE FROM audit_log").run()).rejects.toThrow(/append-only/);
  });

  it("overview counts users and operators", async () => {
    const r = await call("/api/admin/overview", {}, { token: await operatorToken() });
    expect(r.code).toBe(1);
    expect(r.data.users).toBeGreaterThanOrEqual(1);
    expect(r.data.operators).toBeGreaterThanOrEqual(1);
  });
});
