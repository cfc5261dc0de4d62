/**
 * Proof of liabilities inside workerd: an operator's snapshot totals every user's obligation as
 * the ledger says it, each user gets their own leaf and path and checks them with the code
 * users run, nobody gets another's, and only operators take snapshots (audited).
 */
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { audit_log } from "../../../worker/db/schema";
import { checkSnapshots } from "../../../worker/domain/transparency/liabilities";
import { openNote, verifySumPath } from "../../../worker/domain/transparency/verify";
import { logSequencer } from "../../../durable-objects/transparency/log-api";
import { call, db, newUser, testEnv } from "../helpers";
import { bindWallet, fundedUser, operatorToken, PASSWORD, rkey } from "../money/helpers";

describe("proof of liabilities", () => {
  it("the snapshot's total is what the ledger owes users; each user's entry verifies; none is another's", async () => {
    const a = await fundedUser("300");
    const b = await fundedUser("120");
    // Money in every state: a withdrawal under review locks part of A's balance.
    const wallet_id = await bindWallet(a.token);
    expect((await call("/api/user/withdraw", { amount: "50", wallet_id, password: PASSWORD }, { token: a.token, headers: { "idempotency-key": rkey("w") } })).code).toBe(1);
    const op = await operatorToken();
    expect((await call("/api/admin/proof/liabilities", {}, { token: a.token })).status).toBe(401);
    const taken = await call("/api/admin/proof/liabilities", {}, { token: op });
    expect(taken.code, taken.msg).toBe(1);
    const [{ owed }] = await db.all<{ owed: number }>(sql`SELECT COALESCE(SUM(balance_micro), 0) AS owed FROM ledger_accounts WHERE owner_kind = 'user'`);
    expect(taken.data.total_micro).toBe(String(owed));
    expect((await db.select().from(audit_log).where(eq(audit_log.action, "proof.liabilities"))).length).toBe(1);

    const key = (await call("/api/proof/key")).data.verifier_key;
    for (const [u, expected] of [[a, 300_000_000], [b, 120_000_000]] as const) {
      const e = await call("/api/proof/liabilities", {}, { token: u.token });
      expect(e.code, e.msg).toBe(1);
      // Available plus locked: the withdrawal under review is still owed.
      expect(e.data.leaf.balance_micro).toBe(String(expected));
      expect(verifySumPath(e.data.leaf, e.data.path, e.data.root_hash, e.data.total_micro)).toBe(true);
      const opened = openNote(e.data.note, key);
      expect(opened.status).toBe("ok");
      expect((opened as { body: string }).body.split("\n").slice(1, 4)).toEqual([String(e.data.taken_at_ms), e.data.total_micro, e.data.root_hash]);
      expect(e.data.leaf.account).toBe((await call("/api/user/user", {}, { token: u.token })).data.pseudonym);
    }
    const ea = (await call("/api/proof/liabilities", {}, { token: a.token })).data;
    const eb = (await call("/api/proof/liabilities", {}, { token: b.token })).data;
    expect(ea.leaf.account).not.toBe(eb.leaf.account);
    expect(JSON.stringify(ea)).not.toContain(eb.leaf.nonce);
    // Claiming a larger balance fails.
    expect(verifySumPath({ ...ea.leaf, balance_micro: "300000001" }, ea.path, ea.root_hash, ea.total_micro)).toBe(false);
  });

  it("a user who joined after the snapshot hears so; the ledger check agrees with every snapshot", async () => {
    const late = await newUser();
    const r = await call("/api/proof/liabilities", {}, { token: late.token });
    expect(r.code).toBe(0);
    expect(r.data.error).toBe("liabilities_not_included");
    expect(r.msg).toContain("not in the latest snapshot");
    for (const s of await checkSnapshots(db)) expect(s.total_micro).toBe(s.ledger_micro);
    // The console's panel: the snapshot against the ledger, beside the derived reserve addresses.
    const list = await call("/api/admin/proof/liabilities/list", {}, { token: await operatorToken() });
    expect(list.data.snapshots[0]).toMatchObject({ total_micro: list.data.snapshots[0].ledger_micro, taken_by: "operator" });
    expect(list.data.addresses_total).toBeGreaterThan(0);
    expect((await call("/api/admin/proof/liabilities/list", {}, { token: late.token })).status).toBe(401);
    expect(await db.run(sql`UPDATE liability_snapshots SET total_micro = 0`).then(() => "updated", () => "refused")).toBe("refused");
  });

  it("the snapshot published beside the log names accounts by pseudonym only: no user id in it", async () => {
    const users = [await fundedUser("40"), await fundedUser("60")];
    const taken = await call("/api/admin/proof/liabilities", {}, { token: await operatorToken() });
    expect(taken.code, taken.msg).toBe(1);
    const published = await testEnv.LOG.get(`liabilities/${taken.data.taken_at_ms}.json`);
    const text = await published!.text();
    expect(text).not.toContain("user_id");
    const leaves = JSON.parse(text) as Record<string, unknown>[];
    expect(leaves.length).toBe(taken.data.accounts);
    for (const leaf of leaves) expect(Object.keys(leaf).sort()).toEqual(["account", "balance_micro", "nonce"]);
    for (const u of users) {
      const pseudonym = (await call("/api/user/user", {}, { token: u.token })).data.pseudonym;
      expect(leaves.some((l) => l.account === pseudonym)).toBe(true);
      // Still each user's own entry, found by pseudonym.
      expect((await call("/api/proof/liabilities", {}, { token: u.token })).data.leaf.account).toBe(pseudonym);
    }
  });

  it("snapshot files written before with user ids lose them: the latest when read (found by pseudonym), older ones once from the daily check", async () => {
    const u = await fundedUser("30");
    const taken = (await call("/api/admin/proof/liabilities", {}, { token: await operatorToken() })).data;
    const path = `liabilities/${taken.taken_at_ms}.json`;
    const ids = await db.all<{ user_id: number }>(sql`SELECT DISTINCT user_id FROM ledger_accounts WHERE owner_kind = 'user' AND user_id IS NOT NULL ORDER BY user_id`);
    const leaves = JSON.parse(await (await testEnv.LOG.get(path))!.text()) as Record<string, unknown>[];
    // The old layout: the same leaves with a user id beside each (which one does not matter here).
    await testEnv.LOG.put(path, JSON.stringify(leaves.map((l, i) => ({ user_id: ids[i]?.user_id ?? 0, ...l }))));
    const e = await call("/api/proof/liabilities", {}, { token: u.token });
    expect(e.code, e.msg).toBe(1);
    expect(verifySumPath(e.data.leaf, e.data.path, e.data.root_hash, e.data.total_micro)).toBe(true);
    expect(await (await testEnv.LOG.get(path))!.text()).not.toContain("user_id");
    expect(Object.keys(e.data.leaf).sort()).toEqual(["account", "balance_micro", "nonce"]);

    // Older snapshots' files too, once, from the daily check.
    const older = "liabilities/1.json";
    await testEnv.LOG.put(older, JSON.stringify([{ user_id: ids[0].user_id, account: "a", balance_micro: "1", nonce: "n" }]));
    await logSequencer(testEnv).liabilitiesIfDue();
    expect(JSON.parse(await (await testEnv.LOG.get(older))!.text())).toEqual([{ account: "a", balance_micro: "1", nonce: "n" }]);
  });
});
