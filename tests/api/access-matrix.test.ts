/**
 * The access matrix: user A owns one of everything (an order, a deposit and its screenshot, a
 * withdrawal under review, a bound address and card, a pool order, a conversation with its
 * picture). Then user B, a customer-service guest and an operator call EVERY route of the API
 * (read from the app, so new routes join by themselves) with A's ids in every id field and path
 * parameter. Nothing of A's may appear in any answer, and A's money and records must be exactly
 * as they were. Operators read other users only through /api/admin, which is theirs.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createApi } from "../../worker/api/app";
import { withInvocationDb } from "../../worker/db/limits";
import { userCookie } from "../../worker/session-cookie";
import { call, db, operatorToken, page, testEnv } from "./helpers";
import { bindWallet, CARD, fundedUser, PASSWORD, rkey, TRC20, upload } from "./money/helpers";
import { buyPool, withProfile } from "./earn/helpers";
import { market, price } from "./trades/market-helpers";
import { as, cid, newGuest } from "./service/helpers";
import { USDT } from "./money/helpers";
import { newUser } from "./helpers";

const app = createApi();

type Owner = {
  token: string;
  id: number;
  ids: Record<string, number | string>;
  /** Strings only A's records contain: any answer to someone else that holds one leaked it. */
  markers: string[];
};

/** What A owns, read straight from D1: compared before and after the matrix. */
async function stateOf(user_id: number) {
  const q = (text: string) => db.all(sql.raw(text.replaceAll("$U", String(user_id))));
  return {
    balances: await q("SELECT account_key, balance_micro FROM ledger_accounts WHERE user_id = $U ORDER BY id"),
    transfers: await q("SELECT COUNT(*) AS n FROM ledger_transfers t JOIN ledger_accounts a ON a.id IN (t.debit_account_id, t.credit_account_id) WHERE a.user_id = $U"),
    orders: await q("SELECT id, status, stake_micro FROM orders WHERE user_id = $U ORDER BY id"),
    deposits: await q("SELECT id, status FROM deposits WHERE user_id = $U ORDER BY id"),
    withdrawals: await q("SELECT id, status FROM withdrawals WHERE user_id = $U ORDER BY id"),
    wallets: await q("SELECT id, address FROM wallets WHERE user_id = $U ORDER BY id"),
    cards: await q("SELECT id FROM bank_cards WHERE user_id = $U ORDER BY id"),
    pool: await q("SELECT id, status FROM pool_orders WHERE user_id = $U ORDER BY id"),
    messages: await q("SELECT COUNT(*) AS n FROM service_messages m JOIN service_conversations c ON c.id = m.conversation_id WHERE c.user_id = $U"),
    sessions: await q("SELECT COUNT(*) AS n FROM sessions WHERE kind = 'user' AND subject_id = $U AND revoked_at_ms IS NULL"),
  };
}

async function ownerWithEverything(): Promise<Owner> {
  const a = await fundedUser("1000");
  const wallet_id = await bindWallet(a.token);
  const card = await call("/api/user/add_bank", { name: "Ann Marker", bank: "Marker Bank", card_number: CARD, password: PASSWORD }, { token: a.token });
  const withdrawal = await call("/api/user/withdraw", { amount: "20", wallet_id, password: PASSWORD }, { token: a.token, headers: { "idempotency-key": rkey("w") } });
  // An hour: A's order must stay open however long the matrix takes (its settlement would change A's balances).
  const { id: product_id } = await market({ durations: [{ seconds: 3600, profit_rate_bp: 8500, min_stake_micro: 10 * USDT, max_stake_micro: 1000 * USDT }] });
  const order = await call("/api/order/addorder", { product_id, direction: "up", amount: "10", seconds: 3600, quote_price: await price(product_id), client_order_id: rkey("o") }, { token: a.token });
  await withProfile(a.id, "verified");
  const pool = await buyPool(a.token, "100");
  const picture = await upload(a.token);
  const secret = `secret-words-${rkey()}`;
  const opened = await call("/api/service/open", {}, { token: a.token });
  const conversation_id = opened.data.conversation.id as number;
  await as({ token: a.token })("/api/service/send", { conversation_id, text: secret, client_message_id: cid() });
  for (const [what, r] of Object.entries({ card, withdrawal, order, pool, picture, opened })) expect(r.code, `A's ${what}: ${r.msg}`).toBe(1);
  const deposit = (await db.all<{ id: number; tx_hash: string }>(sql`SELECT id, tx_hash FROM deposits WHERE user_id = ${a.id}`))[0]!;
  return {
    token: a.token,
    id: a.id,
    ids: {
      user: a.id, wallet: wallet_id, card: card.data.id, withdrawal: withdrawal.data.id, order: order.data.id ?? order.data.order_id,
      pool: pool.data.id ?? pool.data.order_id, upload: picture.data.id, conversation: conversation_id, deposit: deposit.id,
    },
    // The card as its owner sees it (masked) and its holder; B sends A's ids, so ids are no markers.
    markers: [a.account, TRC20[0], card.data.card.card_number, "Ann Marker", "Marker Bank", secret, deposit.tx_hash],
  };
}

const ID_FIELDS = [
  "id", "user_id", "order_id", "deposit_id", "withdrawal_id", "wallet_id", "bank_id", "conversation_id", "upload_id", "product_id",
  "transfer_id", "promotion_id", "context_ref_id", "ref_id", "after_id", "up_to_id", "image", "file",
];

describe("access matrix: nobody reaches another's records", () => {
  let A: Owner;
  let before: Awaited<ReturnType<typeof stateOf>>;
  beforeAll(async () => {
    A = await ownerWithEverything();
    before = await stateOf(A.id);
  }, 60_000);

  it("user B, a guest and an operator call every route with A's ids: no answer holds A's data, A's records do not change", async () => {
    let B = await newUser();
    const guest = await newGuest();
    const op = { data: { token: await operatorToken() } };
    const routes = new Map<string, { method: string; path: string }>();
    for (const r of app.routes) if (r.method !== "ALL" && !r.path.includes("*")) routes.set(`${r.method} ${r.path}`, r);
    let sent = 0;
    // Routes that end sessions go last, so B's answers are read while B is signed in.
    const ending = (r: { path: string }) => /logout|session|device|self_exclu|2fa\/disable/.test(r.path);
    const ordered = [...routes.values()].sort((x, y) => Number(ending(x)) - Number(ending(y)));
    for (const route of ordered) {
      const admin = route.path.startsWith("/api/admin");
      const identities: { label: string; headers: Record<string, string> }[] = [
        { label: "user B", headers: { token: B.token } },
        { label: "a guest", headers: guest.caller.headers ?? (guest.caller.token ? { token: guest.caller.token } : {}) },
      ];
      // Reading users is an operator's job, through the console routes only.
      if (!admin) identities.push({ label: "an operator", headers: { token: op.data.token } });
      for (const who of identities) {
        for (const [kind, value] of Object.entries(A.ids)) {
          const path = route.path.replace(/:[a-z_]+/g, encodeURIComponent(String(value)));
          const body = Object.fromEntries(ID_FIELDS.map((f) => [f, value]));
          const query = route.method === "GET" ? `?${new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)]))}` : "";
          const res = await app.request(path + query, {
            method: route.method,
            headers: { "content-type": "application/json", ...who.headers, "idempotency-key": rkey("x") },
            body: route.method === "GET" ? undefined : JSON.stringify({ ...body, amount: "1", password: PASSWORD, text: "hello" }),
          }, withInvocationDb(testEnv));
          sent += 1;
          const text = await res.text();
          // Readiness answers 503 when the test server is not ready (no cron run yet): an answer, not a fault.
          const notReady = path === "/api/health/ready" && res.status === 503;
          if (!notReady) expect(res.status, `${route.method} ${path} as ${who.label} with A's ${kind}`).toBeLessThan(500);
          for (const m of A.markers) expect(text.includes(String(m)), `${route.method} ${path} as ${who.label} with A's ${kind} showed ${m}: ${text.slice(0, 300)}`).toBe(false);
        }
      }
      // A route that ended B's session (log out, end all sessions): B signs in again.
      if ((await call("/api/user/user", {}, { token: B.token })).status === 401) {
        const again = await call("/api/user/login", { account: B.account, password: B.password });
        B = { ...B, token: again.data.userinfo.token };
      }
    }
    expect(sent).toBeGreaterThan(routes.size * 2 * Object.keys(A.ids).length - 1);
    expect(await stateOf(A.id)).toEqual(before);
  }, 300_000);

  it("the markers are real: A's own answers show each of them, so a leak would be seen", async () => {
    const mine = async (path: string, body: Record<string, unknown> = {}) => JSON.stringify((await call(path, body, { token: A.token })).data);
    const seen = [
      await mine("/api/user/user"),
      await mine("/api/user/wallet_list"),
      await mine("/api/user/bank_list"),
      await mine("/api/user/recharge_list"),
      await mine("/api/service/messages", { conversation_id: A.ids.conversation }),
    ].join("\n");
    expect(A.markers.filter((m) => !seen.includes(String(m))), "markers A's own pages never show").toEqual([]);
  });

  it("A's files open for A and operators only", async () => {
    const B = await newUser();
    const cookie = async (t: string) => (await userCookie.serialize(t)).split(";")[0];
    const url = `/files/${A.ids.upload}`;
    expect((await page(url, { headers: { cookie: await cookie(A.token) } })).status).toBe(200);
    expect((await page(url, { headers: { cookie: await cookie(B.token) } })).status).toBe(404);
    expect((await page(url)).status).toBe(404);
  });
});
