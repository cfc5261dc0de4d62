import { beforeAll, describe, expect, it } from "vitest";
import { call, newUser, page, seed } from "./helpers";

beforeAll(() => seed());

/** The customer-service pages through the whole Worker (Remix included), as a browser reaches them. */

function cookieOf(res: Response, name: string): string | null {
  for (const c of res.headers.getSetCookie()) if (c.startsWith(`${name}=`)) return c.split(";")[0];
  return null;
}

/** A message sent the way the page's form sends it (a document POST to the page's action). */
function sendForm(fields: Record<string, string>, cookie?: string) {
  return page("/pages/me/sub/service?index", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams({ intent: "send", conversation_id: "", ...fields }),
  });
}

async function signIn(account: string, password: string, cookie: string) {
  return page("/pages/user/login", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ account, password, path: "/pages/me/sub/service" }),
  });
}

describe("the customer-service page", () => {
  it("is open without login, with the contacts", async () => {
    const res = await page("/pages/me/sub/service");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Customer service");
    expect(html).toContain('data-testid="sv-guest-note"');
    expect(res.headers.getSetCookie().some((c) => c.startsWith("pl_guest="))).toBe(false);
  });

  it("a guest's first message opens a conversation and sets the httpOnly guest cookie; the page then shows it", async () => {
    const text = `first words ${Date.now()}`;
    const res = await sendForm({ client_message_id: `guest-${Date.now()}`, text });
    const cookie = cookieOf(res, "pl_guest");
    expect(cookie).toBeTruthy();
    expect(res.headers.getSetCookie().find((c) => c.startsWith("pl_guest="))).toMatch(/HttpOnly/i);
    const again = await page("/pages/me/sub/service", { headers: { cookie: cookie! } });
    expect(await again.text()).toContain(text);
    // Another visitor (no cookie) does not see it.
    expect(await (await page("/pages/me/sub/service")).text()).not.toContain(text);
  });

  it("signing in hands the guest's conversation to the account and drops the guest cookie", async () => {
    const u = await newUser();
    const text = `before login ${Date.now()}`;
    const sent = await sendForm({ client_message_id: `handover-${Date.now()}`, text });
    const guest = cookieOf(sent, "pl_guest")!;
    const login = await signIn(u.account, u.password, guest);
    expect(login.status).toBe(302);
    expect(login.headers.get("location")).toBe("/pages/me/sub/service");
    expect(login.headers.getSetCookie().find((c) => c.startsWith("pl_guest="))).toMatch(/Max-Age=0/i);
    const session = cookieOf(login, "pl_session")!;
    expect(await (await page("/pages/me/sub/service", { headers: { cookie: session } })).text()).toContain(text);
    // The old guest token reads nothing any more (a shared computer's next visitor).
    expect(await (await page("/pages/me/sub/service", { headers: { cookie: guest } })).text()).not.toContain(text);
  });

  it("a context link for an order that is not the user's is refused on the page, nothing attached; a malformed one just opens the chat", async () => {
    const u = await newUser();
    const login = await signIn(u.account, u.password, "");
    const session = cookieOf(login, "pl_session")!;
    const malformed = await page("/pages/me/sub/service?context=user:1", { headers: { cookie: session } });
    expect(malformed.status).toBe(302);
    expect(malformed.headers.get("location")).toBe("/pages/me/sub/service");
    const other = await page("/pages/me/sub/service?context=order:999999999", { headers: { cookie: session } });
    expect(other.status).toBe(200);
    expect(await other.text()).toContain('data-testid="sv-context-error"');
    const kefu = await call("/api/user/kefu", undefined, { token: u.token });
    expect(kefu.code).toBe(1);
    if (kefu.data.conversation_id !== null) {
      const open = await call("/api/service/messages", { conversation_id: kefu.data.conversation_id }, { token: u.token });
      expect(open.data.conversation.contexts).toEqual([]);
    }
  });

  it("'Ask customer service' on a deposit record attaches that deposit and lands on the plain chat URL", async () => {
    const login = await signIn("demo", "demo12345", "");
    const session = cookieOf(login, "pl_session")!;
    const records = await (await page("/pages/me/sub/recharge-record", { headers: { cookie: session } })).text();
    const link = /href="\/pages\/me\/sub\/service\?context=deposit:(\d+)"/.exec(records);
    expect(link).not.toBeNull();
    const attach = await page(`/pages/me/sub/service?context=deposit:${link![1]}`, { headers: { cookie: session } });
    expect(attach.status).toBe(302);
    expect(attach.headers.get("location")).toBe("/pages/me/sub/service");
    const chat = await (await page("/pages/me/sub/service", { headers: { cookie: session } })).text();
    expect(chat).toContain(`data-kind="deposit" data-ref="${link![1]}"`);
    expect(chat).toContain(`About deposit #${link![1]}`);
  });

  it("the console inbox needs an operator", async () => {
    const res = await page("/admin/service");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/admin/login");
  });
});
