/**
 * Model-based property test of the money flows against the real D1 in workerd: random
 * sequences of deposit, approve, reject, withdraw, cancel, pay, adjust and idempotent replays
 * (same key and body, and same key with another body). After EVERY step: debits equal credits,
 * no user balance is negative, cached balances equal the ledger sum, amounts are safe
 * integers, and each user's balances equal a simple in-memory model.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { approveAdjustment, proposeAdjustment } from "../../../worker/domain/adjustments/adjustments";
import { addWallet } from "../../../worker/domain/binding/binding";
import { approveDeposit, rejectDeposit } from "../../../worker/domain/deposits/decide";
import { MAX_PENDING_DEPOSITS, submitDeposit } from "../../../worker/domain/deposits/deposits";
import { createOperator } from "../../../worker/domain/identity/operators";
import { userBalances } from "../../../worker/domain/ledger/balances";
import { checkLedger } from "../../../worker/domain/ledger/check";
import { storeUpload } from "../../../worker/domain/uploads/store";
import { quoteWithdrawal } from "../../../worker/domain/withdrawals/fees";
import { cancelWithdrawal, getRules, payWithdrawal, rejectWithdrawal, requestWithdrawal } from "../../../worker/domain/withdrawals/withdrawals";
import { listChannels } from "../../../worker/domain/deposits/channels";
import { db, newUser, seed, testEnv } from "../helpers";
import { PNG, TRC20, USDT } from "./helpers";

type UserModel = { id: number; wallet_id: number; image_id: string; available: number; locked: number };
type Obj = { id: number; user: number; amount: number; state: string };

const Op = fc.oneof(
  fc.record({ kind: fc.constant("deposit" as const), user: fc.nat(2), amount: fc.integer({ min: 10, max: 5000 }) }),
  fc.record({ kind: fc.constant("approve" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("reject_deposit" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("withdraw" as const), user: fc.nat(2), amount: fc.integer({ min: 1, max: 3000 }) }),
  fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("pay" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("reject_withdrawal" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("adjust" as const), user: fc.nat(2), credit: fc.boolean(), amount: fc.integer({ min: 1, max: 800 }) }),
  fc.record({ kind: fc.constant("replay" as const), pick: fc.nat(), same_body: fc.boolean() }),
);

describe("money model", () => {
  it("keeps the books through 300 random sequences", { timeout: 600_000 }, async () => {
    await seed();
    const now = () => Date.now();
    const [channel] = await listChannels(db, { only_enabled: true });
    const rules = await getRules(db);
    const op1 = (await createOperator(db, { account: "model_op_a", password: "ModelOp12345" }, now())) as { status: "ok"; operator: { id: number } };
    const op2 = (await createOperator(db, { account: "model_op_b", password: "ModelOp12345" }, now())) as { status: "ok"; operator: { id: number } };
    const users: UserModel[] = [];
    for (let i = 0; i < 3; i++) {
      const u = await newUser();
      // Bound a day and an hour ago: open for withdrawals, whatever the allow-list's wait.
      const w = await addWallet(db, { user_id: u.id, chain: "TRC20", address: TRC20[i % 2] }, now() - 25 * 3_600_000);
      const img = await storeUpload(db, testEnv.UPLOADS, u.id, PNG, now());
      if (w.status !== "ok" || img.status !== "ok") throw new Error("setup");
      users.push({ id: u.id, wallet_id: w.wallet.id, image_id: img.upload.id, available: 0, locked: 0 });
    }
    const deposits: Obj[] = [];
    const withdrawals: Obj[] = [];
    const requests: { kind: "deposit" | "withdraw"; user: number; key: string; amount: number; id: number }[] = [];
    let seq = 0;
    let steps = 0;

    async function assertBooks() {
      const report = await checkLedger(db);
      expect(report.drift).toEqual([]);
      expect(report.negative_user_accounts).toEqual([]);
      expect(report.debits_micro).toBe(report.credits_micro);
      expect(report.unsafe_amounts).toBe(0);
      expect(report.ok).toBe(true);
      for (const u of users) {
        const b = await userBalances(db, u.id);
        expect(b.available_micro, `user ${u.id} available`).toBe(u.available);
        expect(b.locked_withdrawal_micro, `user ${u.id} locked`).toBe(u.locked);
        expect(Number.isSafeInteger(b.total_micro)).toBe(true);
      }
    }

    const pick = <T extends Obj>(list: T[], n: number, state?: string) => {
      const pool = state ? list.filter((o) => o.state === state) : list;
      return pool.length ? pool[n % pool.length] : undefined;
    };

    await fc.assert(
      fc.asyncProperty(fc.array(Op, { minLength: 1, maxLength: 8 }), async (ops) => {
        for (const op of ops) {
          steps++;
          switch (op.kind) {
            case "deposit": {
              const u = users[op.user];
              const key = `model-dep-${++seq}`;
              const r = await submitDeposit(db, { user_id: u.id, kind: "crypto", channel_id: channel.id, amount_micro: op.amount * USDT, tx_hash: `h-${key}`, image_id: u.image_id, request_key: key }, now());
              // The model's rule: at most MAX_PENDING_DEPOSITS waiting for review per user.
              const waiting = deposits.filter((d) => d.user === op.user && d.state === "review").length;
              expect(r.status).toBe(waiting >= MAX_PENDING_DEPOSITS ? "too_many_pending" : "ok");
              if (r.status === "ok") {
                deposits.push({ id: r.deposit.id, user: op.user, amount: op.amount * USDT, state: "review" });
                requests.push({ kind: "deposit", user: op.user, key, amount: op.amount * USDT, id: r.deposit.id });
              }
              break;
            }
            case "approve":
            case "reject_deposit": {
              const d = pick(deposits, op.pick);
              if (!d) break;
              // The operator credits what they verified, which may be less than the claim
              // (every amount here is below the four-eyes threshold; past a rolling solo total
              // the first approval waits, and the second operator confirms it).
              const verified = d.amount - (op.pick % 2) * USDT;
              let r = op.kind === "approve" ? await approveDeposit(db, op1.operator.id, d.id, { amount_micro: verified, tx_ref: `ref-${d.id}` }, now()) : await rejectDeposit(db, op1.operator.id, d.id, "model", now());
              if (r.status === "ok" && r.deposit.status === "confirming") r = await approveDeposit(db, op2.operator.id, d.id, { amount_micro: verified, tx_ref: `ref-${d.id}` }, now());
              if (d.state === "review") {
                expect(r.status).toBe("ok");
                d.state = op.kind === "approve" ? "approved" : "rejected";
                if (op.kind === "approve") users[d.user].available += verified;
              } else expect(r.status).toBe("state_conflict");
              break;
            }
            case "withdraw": {
              const u = users[op.user];
              const key = `model-wd-${++seq}`;
              const amount = op.amount * USDT;
              const r = await requestWithdrawal(db, { user_id: u.id, amount_micro: amount, wallet_id: u.wallet_id, bank_id: null, request_key: key, card_keys: null }, now());
              const q = quoteWithdrawal(rules.trc20, amount);
              if (q.status !== "ok") expect(r.status).toBe(q.status);
              else if (amount > u.available) expect(r.status).toBe("insufficient_funds");
              else {
                expect(r.status).toBe("ok");
                if (r.status === "ok") {
                  u.available -= amount;
                  u.locked += amount;
                  withdrawals.push({ id: r.withdrawal.id, user: op.user, amount, state: "review" });
                  requests.push({ kind: "withdraw", user: op.user, key, amount, id: r.withdrawal.id });
                }
              }
              break;
            }
            case "cancel":
            case "pay":
            case "reject_withdrawal": {
              const w = pick(withdrawals, op.pick);
              if (!w) break;
              const u = users[w.user];
              const r =
                op.kind === "cancel"
                  ? await cancelWithdrawal(db, u.id, w.id, now())
                  : op.kind === "pay"
                    ? await payWithdrawal(db, op1.operator.id, w.id, "0xmodel", now())
                    : await rejectWithdrawal(db, op1.operator.id, w.id, "model", now());
              if (w.state !== "review") {
                expect(r.status).toBe("state_conflict");
                break;
              }
              expect(r.status).toBe("ok");
              u.locked -= w.amount;
              if (op.kind !== "pay") u.available += w.amount;
              w.state = op.kind === "pay" ? "paid" : op.kind === "cancel" ? "cancelled" : "rejected";
              break;
            }
            case "adjust": {
              const u = users[op.user];
              const amount = op.amount * USDT;
              const p = await proposeAdjustment(db, op1.operator.id, { user_id: u.id, direction: op.credit ? "credit" : "debit", amount_micro: amount, reason: "model" }, now());
              if (p.status !== "ok") throw new Error("propose");
              expect((await approveAdjustment(db, op1.operator.id, p.adjustment.id, now())).status).toBe("four_eyes");
              const r = await approveAdjustment(db, op2.operator.id, p.adjustment.id, now());
              if (!op.credit && amount > u.available) expect(r.status).toBe("insufficient_funds");
              else {
                expect(r.status).toBe("ok");
                u.available += op.credit ? amount : -amount;
              }
              break;
            }
            case "replay": {
              const req = requests.length ? requests[op.pick % requests.length] : undefined;
              if (!req) break;
              const u = users[req.user];
              const amount = op.same_body ? req.amount : req.amount + USDT;
              const r =
                req.kind === "deposit"
                  ? await submitDeposit(db, { user_id: u.id, kind: "crypto", channel_id: channel.id, amount_micro: amount, tx_hash: `h-${req.key}`, image_id: u.image_id, request_key: req.key }, now())
                  : await requestWithdrawal(db, { user_id: u.id, amount_micro: amount, wallet_id: u.wallet_id, bank_id: null, request_key: req.key, card_keys: null }, now());
              if (op.same_body) {
                expect(r.status).toBe("ok");
                const id = r.status === "ok" ? ("deposit" in r ? r.deposit.id : r.withdrawal.id) : -1;
                expect(id).toBe(req.id);
              } else expect(r.status).toBe("idempotency_conflict");
              break;
            }
          }
          await assertBooks();
        }
      }),
      { numRuns: 300, endOnFailure: true },
    );
    console.log(`money model: 300 sequences, ${steps} steps, books checked after every step`);
  });
});
