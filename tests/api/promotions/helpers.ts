import { DEMO } from "../../../scripts/seed-demo";
import { call, newUser, operatorToken, seed } from "../helpers";
import { approve, recharge } from "../money/helpers";

export const USDT = 1_000_000;
const DAY = 86_400_000;
export const isoDay = (offset_days: number) => new Date(Date.now() + offset_days * DAY).toISOString().slice(0, 10);

export async function operators() {
  await seed();
  const op = await operatorToken(DEMO.operator.account);
  const op2 = await operatorToken(DEMO.operator2.account);
  return { op, op2 };
}

/** The console form's fields: 10 % of a deposit, capped at 50, from 50 USDT, yesterday to in 30 days. */
export const form = (over: Record<string, unknown> = {}) => ({
  title_en: "Recharge bonus",
  terms_en: "10 % of one deposit, up to 50 USDT.",
  title_ja: "入金ボーナス",
  terms_ja: "1回の入金の10%、上限50 USDT。",
  percent: "10",
  cap: "50",
  min_deposit: "50",
  starts_on: isoDay(-1),
  ends_on: isoDay(30),
  enabled: "1",
  reason: "new promotion",
  ...over,
});

/** A promotion one operator set and the other opened (the only way it opens). */
export async function openPromotion(t: { op: string; op2: string }, over: Record<string, unknown> = {}): Promise<number> {
  const saved = await call("/api/admin/promotions/save", form(over), { token: t.op });
  if (saved.code !== 1) throw new Error(`save: ${saved.msg}`);
  const opened = await call(`/api/admin/promotions/${saved.data.id}/enabled`, { enabled: "1", reason: "terms checked" }, { token: t.op2 });
  if (opened.code !== 1) throw new Error(`open: ${opened.msg}`);
  return saved.data.id as number;
}

/** A user with an approved deposit of `amount` USDT (credited as typed). */
export async function userWithDeposit(op: string, amount = "100") {
  const u = await newUser();
  const deposit_id = await approvedDeposit(u.token, op, amount);
  return { ...u, deposit_id };
}

export async function approvedDeposit(token: string, op: string, amount: string): Promise<number> {
  const dep = await recharge(token, amount);
  if (dep.code !== 1) throw new Error(`recharge: ${dep.msg}`);
  const ok = await approve(op, dep.data.id, amount);
  if (ok.code !== 1) throw new Error(`approve: ${ok.msg}`);
  return dep.data.id as number;
}

export async function book(token: string, id: number) {
  return call("/api/index/activity_book", { id }, { token });
}

export async function stateOf(token: string, id: number) {
  const r = await call("/api/index/activity", {}, { token });
  return (r.data.items as any[]).find((p) => p.id === id);
}
