/**
 * What the market tests need and nothing more: an operator, users registered through the API,
 * funded by one ledger transfer each (platform:deposits → available, like an approved
 * deposit's credit) so these tests depend only on the ledger, not on the deposit workflow,
 * and markets of their own.
 */
import { eq } from "drizzle-orm";
import { orders } from "../../../worker/db/schema";
import { createOperator } from "../../../worker/domain/identity/operators";
import { ensurePlatformInviteCode } from "../../../worker/domain/identity/users";
import { platformAccount, userAccount } from "../../../worker/domain/ledger/accounts";
import { postTransfers } from "../../../worker/domain/ledger/transfer";
import { saveProduct, type ProductInput } from "../../../worker/domain/trades/products";
import { MAX_ENTRY_WAIT_MS } from "../../../worker/domain/trades/settlement";
import { call, db, operatorToken, uniqueAccount } from "../helpers";

export const USDT = 1_000_000;
const OPERATOR = { account: "marketsop", password: "operator12345" };
/** The second pair of eyes: opens the terms the first one proposes (decision 121). */
const OPERATOR2 = { account: "marketsop2", password: "operator12345" };
const INVITE = "MARKETS";

let ready: Promise<void> | null = null;
function setup() {
  ready ??= (async () => {
    await createOperator(db, OPERATOR, Date.now());
    await createOperator(db, OPERATOR2, Date.now());
    await ensurePlatformInviteCode(db, INVITE, Date.now());
  })();
  return ready;
}

/** The markets' operator (or another), signed in with a code (tests/api/helpers.ts gives it a key). */
export async function operator(who = OPERATOR): Promise<string> {
  await setup();
  return operatorToken(who.account, who.password);
}

export const secondOperator = () => operator(OPERATOR2);

/** A second operator opens a proposal; the answer of the open. */
export async function openTerms(proposal_id: number) {
  const r = await call(`/api/admin/terms/proposals/${proposal_id}/open`, {}, { token: await secondOperator() });
  if (r.code !== 1) throw new Error(`open terms: ${r.msg}`);
  return r;
}

let funded = 0;
export async function user(amount_usdt: number) {
  await setup();
  const account = uniqueAccount("m");
  const r = await call("/api/user/register", { account, password: "secret123", password_confirm: "secret123", invite_code: INVITE });
  if (r.code !== 1) throw new Error(`register: ${r.msg}`);
  const u = { id: r.data.userinfo.id as number, token: r.data.userinfo.token as string };
  if (amount_usdt > 0) {
    const moved = await postTransfers(db, [{ key: `test:fund:${u.id}:${++funded}`, debit: platformAccount("deposits"), credit: userAccount(u.id, "available"), amount_micro: amount_usdt * USDT, code: "deposit", ref_type: "test", ref_id: String(u.id) }], [], Date.now());
    if (moved.status !== "ok") throw new Error(`fund: ${moved.status}`);
  }
  return u;
}

export async function balance(token: string) {
  const me = await call("/api/user/user", {}, { token });
  return { available: me.data.balance_micro as number, locked: me.data.locked_micro as number };
}

let markets = 0;
/** A fresh market (its own symbol, so its own QuoteHub). */
export async function market(over: Partial<ProductInput> = {}) {
  const n = ++markets;
  const symbol = `M${Date.now().toString(36).slice(-5).toUpperCase()}${n}/USDT`;
  const r = await saveProduct(
    db,
    null,
    {
      symbol,
      name: `Market ${n}`,
      feed_symbol: symbol.replace("/", ""),
      start_price_e8: 100 * 1e8,
      tick_size_e8: 1_000_000,
      fee_rate_bp: 100,
      quote_tolerance_bp: 500,
      trading_hours: "",
      enabled: true,
      sort: 50,
      durations: [{ seconds: 60, profit_rate_bp: 8000, min_stake_micro: 1 * USDT, max_stake_micro: 10_000 * USDT }],
      ...over,
    },
    "test",
    Date.now(),
  );
  if (r.status !== "ok") throw new Error(`market: ${r.status}`);
  return r.product;
}

export async function price(product_id: number): Promise<string> {
  return (await call("/api/index/product", { id: product_id })).data.price as string;
}

/**
 * The order once its entry is stored: the first tick after acceptance, which the symbol's hub
 * writes at its next beat (within about a second; decision 123). A beat may come up to
 * MAX_ENTRY_WAIT_MS after acceptance and still enter the order, and on a loaded machine (CI,
 * beside the journeys and the walk) beats run late: so the wait is that window plus time for the
 * write, not the window alone (a 5 s wait failed a clean-clone run once).
 */
export async function entered(order_id: number, timeout_ms = MAX_ENTRY_WAIT_MS + 10_000) {
  const until = Date.now() + timeout_ms;
  for (;;) {
    const [row] = await db.select().from(orders).where(eq(orders.id, order_id));
    if (row?.entry_price_e8 !== null && row?.entry_tick_ts_ms !== null) return row as typeof row & { entry_price_e8: number; entry_tick_ts_ms: number };
    if (Date.now() > until) throw new Error(`order ${order_id}: no entry after ${timeout_ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The console's save of a market made by `market()`: its fields as the form sends them, with `over` laid on top. */
export const saveBody = (p: { symbol: string; name: string; feed_symbol: string }, over: Record<string, unknown> = {}) => ({
  reason: "test",
  symbol: p.symbol,
  name: p.name,
  feed_symbol: p.feed_symbol,
  start_price: "100",
  tick_size: "0.01",
  fee_rate_bp: 100,
  quote_tolerance_bp: 500,
  trading_hours: "",
  enabled: "1",
  durations: JSON.stringify([{ seconds: 60, profit_rate_bp: 8000, min_amount: "1", max_amount: "10000" }]),
  ...over,
});
