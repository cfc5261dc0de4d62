import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { challengeText } from "../../../worker/domain/identity/wallet-challenge";
import { call, page, seed } from "../helpers";

beforeAll(() => seed());

/** The whole Worker reaches the page as http://127.0.0.1 (tests/api/helpers.ts `page`). */
async function postSigned(domain: string, uri: string, path = "") {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const nonce = (await call("/api/user/nonce", undefined, { method: "GET" })).data.nonce;
  const message = challengeText({ kind: "eth", domain, address: wallet.address, uri, nonce, issued_at_ms: Date.now() });
  const form = new URLSearchParams({ account: wallet.address, message, signature: await wallet.signMessage({ message }), type: "eth", path });
  const res = await page("/pages/user/login2", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
  return { res, wallet };
}

const sessionCookie = (res: Response) => res.headers.getSetCookie().find((c) => c.startsWith("pl_session="));

describe("the wallet login page", () => {
  it("signs in through the page's action with the same session cookie as password login, and returns to the path", async () => {
    const { res, wallet } = await postSigned("127.0.0.1", "http://127.0.0.1", "/pages/me/index");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/pages/me/index");
    expect(sessionCookie(res)).toMatch(/HttpOnly/i);
    const me = await page("/pages/me/index", { headers: { cookie: sessionCookie(res)!.split(";")[0] } });
    expect(me.status).toBe(200);
    expect(await me.text()).toContain(wallet.address.toLowerCase());
  });

  it("checks the domain the visitor's browser was on: a message signed for another site sets no cookie", async () => {
    const { res } = await postSigned("evil.example", "https://evil.example");
    expect(sessionCookie(res)).toBeUndefined();
    expect(res.status).toBe(200);
  });

  it("links to the password login, which links back", async () => {
    const wallet = await (await page("/pages/user/login2")).text();
    expect(wallet).toContain('href="/pages/user/login"');
    expect(wallet).toContain("Sign in with a password");
    const password = await (await page("/pages/user/login")).text();
    expect(password).toContain('href="/pages/user/login2"');
    expect(password).toContain("Sign in with a wallet");
  });
});
