/**
 * A withdrawal channel's fees and minimum need two operators, and a withdrawal binds the fee its
 * form showed (decision 121). The channel's rule is shared by every file of this workerd, so the
 * test puts the old terms back (through the same two-operator path) before it ends.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../scripts/seed-demo";
import { call, seed } from "../helpers";
import { balance, bindWallet, fundedUser, operatorToken, PASSWORD, rkey } from "./helpers";

beforeAll(() => seed());

const info = async (token: string) => (await call("/api/user/withdraw_info", {}, { token })).data.rules.trc20;
const rule = (over: Record<string, unknown>) => ({ reason: "fee review", fee_fixed: "1", fee_rate_bp: 0, min_amount: "10", enabled: "1", ...over });

describe("withdrawal terms", () => {
  it("a new fee waits for a second operator; a withdrawal naming the old terms is refused, nothing locked", async () => {
    const op = await operatorToken();
    const second = await operatorToken(DEMO.operator2.account, DEMO.operator2.password);
    const u = await fundedUser("500");
    const wallet_id = await bindWallet(u.token);
    const shown = await info(u.token);
    expect(shown).toMatchObject({ fee_fixed: "1.00", fee_rate_bp: 0 });

    // 100 % fees are outside the published range.
    const greedy = await call("/api/admin/withdrawal_rules/trc20", rule({ fee_rate_bp: 10_000 }), { token: op });
    expect(greedy.data.error).toBe("terms_out_of_bounds");
    expect((await call("/api/admin/withdrawal_rules/trc20", rule({ fee_fixed: "51" }), { token: op })).data.error).toBe("terms_out_of_bounds");

    const proposed = await call("/api/admin/withdrawal_rules/trc20", rule({ fee_fixed: "5" }), { token: op });
    expect(proposed.data.proposal_id).toBeGreaterThan(0);
    expect(await info(u.token)).toEqual(shown);
    expect((await call(`/api/admin/terms/proposals/${proposed.data.proposal_id}/open`, {}, { token: op })).data.error).toBe("terms_same_operator");
    try {
      expect((await call(`/api/admin/terms/proposals/${proposed.data.proposal_id}/open`, {}, { token: second })).code).toBe(1);
      // The user's form still shows a fee of 1 USDT.
      const stale = await call("/api/user/withdraw", { amount: "100", wallet_id, password: PASSWORD, terms_version: shown.terms_version }, { token: u.token, headers: { "idempotency-key": rkey("wt") } });
      expect(stale.data.error).toBe("withdraw_terms_changed");
      expect(stale.data.rule).toMatchObject({ fee_fixed: "5.00", terms_version: shown.terms_version + 1 });
      expect(await balance(u.token)).toEqual({ available: 500_000_000, locked: 0 });
      // With the terms it was shown, the new fee applies.
      const fresh = await call("/api/user/withdraw", { amount: "100", wallet_id, password: PASSWORD, terms_version: shown.terms_version + 1 }, { token: u.token, headers: { "idempotency-key": rkey("wt") } });
      expect(fresh.code).toBe(1);
      expect(fresh.data).toMatchObject({ fee: "5.00", actual_amount: "95.00" });
    } finally {
      // The old terms back, by the same two-operator path.
      const back = await call("/api/admin/withdrawal_rules/trc20", rule({ reason: "restore" }), { token: op });
      if (back.data?.proposal_id) await call(`/api/admin/terms/proposals/${back.data.proposal_id}/open`, {}, { token: second });
    }
    expect((await info(u.token)).fee_fixed).toBe("1.00");
  });
});
