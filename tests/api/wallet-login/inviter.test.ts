import { eq } from "drizzle-orm";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { users } from "../../../worker/db/schema";
import { challengeText } from "../../../worker/domain/identity/wallet-challenge";
import { call, db, newUser, seed } from "../helpers";

beforeAll(() => seed());

/** A wallet account, signed in for the first time (no invitation code used). */
async function walletUser() {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const nonce = (await call("/api/user/nonce", undefined, { method: "GET" })).data.nonce;
  const message = challengeText({ kind: "eth", domain: "localhost", address: wallet.address, uri: "http://localhost", nonce, issued_at_ms: Date.now() });
  const r = await call("/api/user/loginByAddr", { account: wallet.address, message, signature: await wallet.signMessage({ message }), type: "eth" });
  expect(r.code).toBe(1);
  return { token: r.data.userinfo.token as string, id: r.data.userinfo.id as number, own_code: r.data.userinfo.invite_code as string };
}

const setInviter = (token: string, invite_code: string) => call("/api/user/set_inviter", { invite_code }, { token });
const row = (id: number) => db.query.users.findFirst({ where: eq(users.id, id) });

describe("POST /api/user/set_inviter", () => {
  it("lets a wallet account name its inviter once; the inviter never changes afterwards", async () => {
    const inviter = await newUser();
    const other = await newUser();
    const inviterCode = (await row(inviter.id))!.invite_code;
    const w = await walletUser();
    const saved = await setInviter(w.token, inviterCode.toLowerCase());
    expect(saved.code).toBe(1);
    expect(saved.msg).toBe("Invitation code saved.");
    expect(await row(w.id)).toMatchObject({ inviter_id: inviter.id, invited_with_code: inviterCode });
    const again = await setInviter(w.token, (await row(other.id))!.invite_code);
    expect(again).toMatchObject({ code: 0, data: { error: "inviter_already_set" } });
    expect((await row(w.id))!.inviter_id).toBe(inviter.id);
  });

  it("takes a platform code (no inviter, the code is kept)", async () => {
    const w = await walletUser();
    expect((await setInviter(w.token, "WELCOME")).code).toBe(1);
    expect(await row(w.id)).toMatchObject({ inviter_id: null, invited_with_code: "WELCOME" });
  });

  it("refuses an account that registered with a code: its inviter was set at registration", async () => {
    const u = await newUser();
    const r = await setInviter(u.token, "WELCOME");
    expect(r).toMatchObject({ code: 0, data: { error: "inviter_already_set" } });
  });

  it("refuses the user's own code and a loop through someone they invited", async () => {
    const w = await walletUser();
    expect(await setInviter(w.token, w.own_code)).toMatchObject({ code: 0, data: { error: "invite_own" } });
    // B registers with the wallet's code; the wallet may not then name B as its inviter.
    const b = await call("/api/user/register", { account: `b${Date.now().toString(36)}`, password: "secret123", password_confirm: "secret123", invite_code: w.own_code });
    expect(b.code).toBe(1);
    expect(await setInviter(w.token, b.data.userinfo.invite_code)).toMatchObject({ code: 0, data: { error: "invite_own" } });
    expect((await row(w.id))!.invited_with_code).toBe("");
  });

  it("refuses an unknown code and bad input with the localized words, and a request without a session", async () => {
    const w = await walletUser();
    expect(await setInviter(w.token, "NOSUCHCODE9")).toMatchObject({ code: 0, data: { error: "invite_unknown" } });
    expect(await setInviter(w.token, "<script>")).toMatchObject({ code: 0, data: { error: "invite_unknown" } });
    const th = await call("/api/user/set_inviter?lang=ty", { invite_code: "NOSUCHCODE9" }, { token: w.token });
    expect(th.msg).toBe("ไม่มีรหัสเชิญนี้");
    expect((await call("/api/user/set_inviter", { invite_code: "WELCOME" })).status).toBe(401);
  });

  it("sets the inviter once under ten racing requests with ten different codes", async () => {
    const w = await walletUser();
    const inviters = await Promise.all(Array.from({ length: 10 }, () => newUser()));
    const codes = await Promise.all(inviters.map(async (u) => (await row(u.id))!.invite_code));
    const answers = await Promise.all(codes.map((c) => setInviter(w.token, c)));
    expect(answers.filter((a) => a.code === 1)).toHaveLength(1);
    const winner = codes[answers.findIndex((a) => a.code === 1)];
    expect((await row(w.id))!.invited_with_code).toBe(winner);
  });
});
