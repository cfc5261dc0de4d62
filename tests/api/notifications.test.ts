import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { notifications, push_subscriptions } from "../../worker/db/schema";
import { notificationInsert } from "../../worker/domain/notifications/notify";
import { checkOrder } from "../../worker/domain/trades/order-check";
import { decide, writeSettlements } from "../../worker/domain/trades/settlement-writes";
import { getProduct } from "../../worker/domain/trades/products";
import { writeOrders } from "../../worker/domain/trades/order-writes";
import { base64urlnopad } from "@scure/base";
import { keyBytes } from "../../worker/push/ece";
import { decryptPush } from "../../worker/push/ece";
import { hubFor } from "../../worker/quotes";
import { call, db, newUser, testEnv } from "./helpers";
import { approve, bindWallet, fundedUser, operatorToken, PASSWORD, recharge, rkey } from "./money/helpers";
import { market, user, USDT } from "./trades/market-helpers";
import { cookieOf, opSend, socket } from "./service/helpers";

const list = (token: string, body: Record<string, unknown> = {}) => call("/api/user/notifications", body, { token });
const noticesOf = (user_id: number) => db.select().from(notifications).where(eq(notifications.user_id, user_id));

/** A user with a deposit under review of `amount`. */
async function depositing(amount = "25") {
  const u = await newUser();
  const dep = await recharge(u.token, amount);
  return { ...u, deposit_id: dep.data.id as number };
}

async function fill(user_id: number, n: number) {
  const now = Date.now();
  for (let i = 0; i < n; i++) await notificationInsert(db, { user_id, kind: "deposit_credited", params: { deposit_id: i, amount_micro: String((i + 1) * USDT) }, dedupe_key: `fill:${i}`, now_ms: now + i });
}

/** A browser's push subscription: its own P-256 pair and auth secret. */
async function browserKeys() {
  const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"])) as CryptoKeyPair;
  const p256dh = new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer);
  const auth = crypto.getRandomValues(new Uint8Array(16));
  return { private_key: pair.privateKey, p256dh, auth, json: { p256dh: base64urlnopad.encode(p256dh), auth: base64urlnopad.encode(auth) } };
}

/** The local push service: outbound requests to push.example.test are kept here; the first answers 201, later ones 410 (gone). */
function interceptPushes() {
  const received: { url: string; headers: Headers; body: Uint8Array }[] = [];
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith("https://push.example.test/")) return realFetch(input, init);
    received.push({ url, headers: new Headers(init?.headers), body: new Uint8Array(await new Response(init?.body).arrayBuffer()) });
    return new Response(null, { status: received.length === 1 ? 201 : 410 });
  });
  return received;
}

describe("notification centre", () => {
  it("a credited deposit notifies once, in the reader's language; a replayed credit adds nothing", async () => {
    const u = await depositing("25");
    const op = await operatorToken();
    const answers = await Promise.all([approve(op, u.deposit_id, "25"), approve(op, u.deposit_id, "25")]);
    expect(answers.map((a) => a.code).sort()).toEqual([0, 1]);
    const r = await list(u.token);
    expect(r.data.unread).toBe(1);
    expect(r.data.list).toHaveLength(1);
    expect(r.data.list[0]).toMatchObject({ kind: "deposit_credited", params: { deposit_id: u.deposit_id, amount_micro: String(25 * USDT) }, read: false, title: "Deposit credited", body: "25.00 USDT was added to your balance.", url: "/pages/me/sub/recharge-record" });
    const th = await call("/api/user/notifications", { lang: "th" }, { token: u.token });
    expect(th.data.list[0].title).toBe("ฝากเงินเข้าบัญชีแล้ว");
    expect(await noticesOf(u.id)).toHaveLength(1);
  });

  it("a rejected deposit notifies with the amount claimed", async () => {
    const u = await depositing("40");
    const op = await operatorToken();
    expect((await call(`/api/admin/deposits/${u.deposit_id}/reject`, { reason: "no such transfer" }, { token: op })).code).toBe(1);
    const rows = await noticesOf(u.id);
    expect(rows.map((n) => [n.kind, JSON.parse(n.params_json)])).toEqual([["deposit_rejected", { deposit_id: u.deposit_id, amount_micro: String(40 * USDT) }]]);
  });

  it("a paid and a rejected withdrawal notify with their amounts", async () => {
    const u = await fundedUser("300");
    const wallet_id = await bindWallet(u.token);
    const a = await call("/api/user/withdraw", { amount: "100", wallet_id, password: PASSWORD }, { token: u.token, headers: { "idempotency-key": rkey() } });
    const b = await call("/api/user/withdraw", { amount: "50", wallet_id, password: PASSWORD }, { token: u.token, headers: { "idempotency-key": rkey() } });
    expect((await call(`/api/admin/withdrawals/${a.data.id}/pay`, { tx_ref: "0xpaid" }, { token: u.op })).code).toBe(1);
    expect((await call(`/api/admin/withdrawals/${b.data.id}/reject`, { reason: "Address flagged" }, { token: u.op })).code).toBe(1);
    expect((await call(`/api/admin/withdrawals/${b.data.id}/reject`, { reason: "again" }, { token: u.op })).code).toBe(0);
    const r = await list(u.token);
    expect(r.data.list.slice(0, 2).map((n: { kind: string; params: object; url: string }) => [n.kind, n.params, n.url])).toEqual([
      ["withdrawal_rejected", { withdrawal_id: b.data.id, amount_micro: String(50 * USDT) }, "/pages/me/sub/draw-record"],
      ["withdrawal_paid", { withdrawal_id: a.data.id, amount_micro: String(100 * USDT) }, "/pages/me/sub/draw-record"],
    ]);
  });

  it("tells the user's open pages the new counts live, and again when read", async () => {
    const u = await depositing("30");
    const ws = await socket("/ws/user", await cookieOf("user", u.token));
    expect((await approve(await operatorToken(), u.deposit_id, "30")).code).toBe(1);
    expect(await ws.nextOf("notice")).toEqual({ type: "notice", unread: 1, badge: 1 });
    expect((await call("/api/user/notifications/read", { all: 1 }, { token: u.token })).data).toEqual({ unread: 0, badge: 0 });
    expect(await ws.nextOf("notice")).toEqual({ type: "notice", unread: 0, badge: 0 });
    ws.close();
  });

  it("lists newest first, 20 a page, continued by before_id", async () => {
    const u = await newUser();
    await fill(u.id, 25);
    const first = await list(u.token);
    expect(first.data.list).toHaveLength(20);
    expect(first.data.unread).toBe(25);
    const ids = first.data.list.map((n: { id: number }) => n.id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    expect(first.data.list[0].params.amount_micro).toBe(String(25 * USDT));
    const second = await list(u.token, { before_id: ids[19] });
    expect(second.data.list).toHaveLength(5);
    expect(second.data.list[4].params.amount_micro).toBe(String(USDT));
  });

  it("marks read by ids (another user's ids are ignored) or all", async () => {
    const a = await newUser();
    const b = await newUser();
    await fill(a.id, 3);
    await fill(b.id, 2);
    const aIds = (await list(a.token)).data.list.map((n: { id: number }) => n.id);
    const byB = await call("/api/user/notifications/read", { ids: aIds }, { token: b.token });
    expect(byB.data.unread).toBe(2);
    expect((await list(a.token)).data.unread).toBe(3);
    const one = await call("/api/user/notifications/read", { ids: [aIds[0]] }, { token: a.token });
    expect(one.data.unread).toBe(2);
    expect((await list(a.token)).data.list[0].read).toBe(true);
    expect((await call("/api/user/notifications/read", { all: 1 }, { token: a.token })).data.unread).toBe(0);
    expect((await list(b.token)).data.unread).toBe(2);
  });

  it("bad input gets a localized envelope error, never a 500; no session gets 401", async () => {
    const u = await newUser();
    for (const body of [{}, { ids: "abc" }, { ids: [0] }, { ids: Array.from({ length: 101 }, (_, i) => i + 1) }, { all: 2 }]) {
      const r = await call("/api/user/notifications/read", body as Record<string, unknown>, { token: u.token });
      expect(r.status, JSON.stringify(body)).toBe(200);
      expect(r.code).toBe(0);
      expect(r.msg).not.toBe("");
    }
    expect((await list(u.token, { before_id: "x" })).code).toBe(0);
    expect((await call("/api/user/notifications", {})).status).toBe(401);
  });
});

describe("orders settled", () => {
  it("one settlement of many orders is one notice per owner with the count and the net", async () => {
    const product_id = (await market({ symbol: "NTF/USDT", name: "Notice coin", feed_symbol: "NTFUSDT", durations: [{ seconds: 2, profit_rate_bp: 8500, min_stake_micro: 10 * USDT, max_stake_micro: 1000 * USDT }] })).id;
    const product = (await getProduct(db, product_id))!;
    const [a, b] = [await user(100), await user(100)];
    const entry = { ts_ms: Date.now() - 10_000, price_e8: 100 * 1e8 };
    const place = async (user_id: number, direction: "up" | "down") => {
      const c = checkOrder(product, { user_id, product_id, direction, stake_micro: 10 * USDT, seconds: 2, quote_price_e8: entry.price_e8, request_key: `client:${rkey("ntf")}` }, entry, entry.ts_ms);
      if (c.status !== "ok") throw new Error(c.status);
      const [r] = await writeOrders(db, [c.order]);
      if (r.status !== "ok") throw new Error(r.status);
      return r.order;
    };
    const placed = [await place(a.id, "up"), await place(a.id, "up"), await place(a.id, "down"), await place(a.id, "up"), await place(b.id, "down")];
    const ticks = [entry, { ts_ms: entry.ts_ms + 1000, price_e8: 100 * 1e8 }, { ts_ms: entry.ts_ms + 2000, price_e8: 102 * 1e8 }, { ts_ms: entry.ts_ms + 3000, price_e8: 103 * 1e8 }];
    const decided = placed.map((o) => decide(o, ticks));
    expect(await writeSettlements(db, decided, Date.now())).toEqual({ settled: 5, already: 0 });
    expect(await writeSettlements(db, decided, Date.now())).toEqual({ settled: 0, already: 5 });
    const ofA = await noticesOf(a.id);
    const settledA = ofA.filter((n) => n.kind === "orders_settled");
    expect(settledA).toHaveLength(1);
    // Three wins pay 18.50 each for 10 staked (+8.50), one loss pays nothing (-10): +15.50.
    expect(JSON.parse(settledA[0].params_json)).toEqual({ count: 4, net_micro: String(3 * 8_500_000 - 10 * USDT), order_id: placed[0].id });
    const r = await list(a.token);
    expect(r.data.list.find((n: { kind: string }) => n.kind === "orders_settled")).toMatchObject({ body: "4 orders settled. Net result: +15.50 USDT.", url: `/pages/money/order?id=${placed[0].id}` });
    const settledB = (await noticesOf(b.id)).filter((n) => n.kind === "orders_settled");
    expect(settledB.map((n) => JSON.parse(n.params_json))).toEqual([{ count: 1, net_micro: String(-10 * USDT), order_id: placed[4].id }]);
  });
});

describe("orders settled by the market's hub", () => {
  afterEach(() => vi.restoreAllMocks());

  it("a hub settlement run tells each owner once, with one push to their device", async () => {
    const product_id = (await market({ symbol: "NTH/USDT", name: "Hub notice coin", feed_symbol: "NTHUSDT", quote_tolerance_bp: 50, durations: [{ seconds: 2, profit_rate_bp: 8500, min_stake_micro: 10 * USDT, max_stake_micro: 1000 * USDT }] })).id;
    const u = await user(500);
    const browser = await browserKeys();
    const endpoint = `https://push.example.test/hub/${rkey("sub")}`;
    expect((await call("/api/user/push/subscribe", { endpoint, ...browser.json }, { token: u.token })).code).toBe(1);
    const received = interceptPushes();
    const price = (await call("/api/index/product", { id: product_id })).data.price as string;
    const placed = await Promise.all(["up", "down", "up"].map((direction) => call("/api/order/addorder", { product_id, direction, amount: "10", seconds: 2, quote_price: price, client_order_id: rkey(direction) }, { token: u.token })));
    expect(placed.map((p) => p.code)).toEqual([1, 1, 1]);
    await new Promise((r) => setTimeout(r, 3500));
    await (await hubFor(testEnv, (await getProduct(db, product_id))!)).settleDue();
    // One notice per settlement run: usually one run takes all three, but on a loaded machine the
    // orders can straddle a second and the hub's own alarm settles the first ones before
    // settleDue takes the rest. Either way each order is told exactly once, with one push a notice.
    const settled = (await noticesOf(u.id)).filter((n) => n.kind === "orders_settled");
    const told = settled.map((n) => JSON.parse(n.params_json) as { count: number; order_id: number });
    expect(told.reduce((sum, n) => sum + n.count, 0)).toBe(3);
    expect(settled.length).toBeLessThanOrEqual(3);
    expect(Math.min(...told.map((n) => n.order_id))).toBe(Math.min(...placed.map((p) => p.data.id as number)));
    for (let i = 0; i < 30 && received.length < settled.length; i++) await new Promise((r) => setTimeout(r, 100));
    expect(received).toHaveLength(settled.length);
    const payload = JSON.parse(new TextDecoder().decode(await decryptPush(received[0].body as Uint8Array<ArrayBuffer>, browser)));
    expect(told.map((n) => `/pages/money/order?id=${n.order_id}`)).toContain(payload.url);
    expect(payload.title).toBe("Orders settled");
    expect(payload.body).toMatch(/^\d orders? settled\. Net result: [+-]?[\d.]+ USDT\.$/);
  });
});

describe("operator messages", () => {
  it("an operator's reply to a user with no service page open notifies once until the chat is read", async () => {
    const u = await newUser();
    const open = await call("/api/service/open", {}, { token: u.token });
    const conversation_id = open.data.conversation.id as number;
    await call("/api/service/send", { conversation_id, client_message_id: rkey("v"), text: "hello" }, { token: u.token });
    expect((await opSend(conversation_id, "How can we help?")).code).toBe(1);
    expect((await opSend(conversation_id, "Are you there?")).code).toBe(1);
    let rows: (typeof notifications.$inferSelect)[] = [];
    for (let i = 0; i < 50 && rows.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      rows = await db.select().from(notifications).where(and(eq(notifications.user_id, u.id), eq(notifications.kind, "operator_message")));
    }
    await new Promise((r) => setTimeout(r, 500));
    rows = await db.select().from(notifications).where(and(eq(notifications.user_id, u.id), eq(notifications.kind, "operator_message")));
    expect(rows.map((n) => JSON.parse(n.params_json))).toEqual([{ conversation_id }]);
    const r = await list(u.token);
    expect(r.data.list[0]).toMatchObject({ kind: "operator_message", url: "/pages/me/sub/service" });
    // The chat counts the replies on the me tab; the notice does not count twice there.
    expect(r.data).toMatchObject({ unread: 1, badge: 0 });

    // Reading the chat reads the notice (the bell hears it): the next reply notifies again.
    const channel = await socket("/ws/user", await cookieOf("user", u.token));
    const messages = await call("/api/service/messages", { conversation_id }, { token: u.token });
    const up_to_id = Math.max(...messages.data.messages.map((m: { id: number }) => m.id));
    expect((await call("/api/service/read", { conversation_id, up_to_id }, { token: u.token })).code).toBe(1);
    expect((await list(u.token)).data.unread).toBe(0);
    expect(await channel.nextOf("notice")).toEqual({ type: "notice", unread: 0, badge: 0 });
    channel.close();
    expect((await opSend(conversation_id, "Anything else?")).code).toBe(1);
    for (let i = 0; i < 50 && (await list(u.token)).data.unread === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await noticesOf(u.id)).filter((n) => n.kind === "operator_message")).toHaveLength(2);
  });
});

describe("Web Push", () => {
  afterEach(() => vi.restoreAllMocks());


  it("serves the VAPID key, encrypts each notice to the subscription, signs with VAPID, and drops a gone subscription", async () => {
    const u = await depositing("12.5");
    await call("/api/user/lang", { value: "th" }, { token: u.token });
    const key = await call("/api/user/push/key", {}, { token: u.token });
    expect(key.code).toBe(1);
    expect(base64urlnopad.decode(key.data.public_key).length).toBe(65);
    const browser = await browserKeys();
    const endpoint = `https://push.example.test/send/${rkey("sub")}`;
    expect((await call("/api/user/push/subscribe", { endpoint, ...browser.json }, { token: u.token })).code).toBe(1);
    expect((await call("/api/user/push/subscribe", { endpoint: "http://plain.example/x", ...browser.json }, { token: u.token })).code).toBe(0);
    expect((await call("/api/user/push/subscribe", { endpoint, p256dh: "AAAA", auth: browser.json.auth }, { token: u.token })).code).toBe(0);

    const received = interceptPushes();

    const op = await operatorToken();
    expect((await approve(op, u.deposit_id, "12.5")).code).toBe(1);
    expect(received).toHaveLength(1);
    const [push] = received;
    expect(push.url).toBe(endpoint);
    expect(push.headers.get("content-encoding")).toBe("aes128gcm");
    expect(Number(push.headers.get("ttl"))).toBeGreaterThan(0);
    const text = new TextDecoder().decode(await decryptPush(push.body as Uint8Array<ArrayBuffer>, browser));
    expect(JSON.parse(text)).toMatchObject({ title: "ฝากเงินเข้าบัญชีแล้ว", body: "เพิ่ม 12.50 USDT เข้ายอดคงเหลือของคุณแล้ว", url: "/pages/me/sub/recharge-record" });

    // RFC 8292: "vapid t=<JWT signed ES256 by the key>, k=<that public key>", audience the push service's origin.
    const auth = /^vapid t=([^,]+), k=(.+)$/.exec(push.headers.get("authorization") ?? "")!;
    expect(auth[2]).toBe(key.data.public_key);
    const [h, c, s] = auth[1].split(".");
    expect(JSON.parse(new TextDecoder().decode(base64urlnopad.decode(c)))).toMatchObject({ aud: "https://push.example.test" });
    const verifyKey = await crypto.subtle.importKey("raw", keyBytes(auth[2])!, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
    expect(await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, verifyKey, keyBytes(s)!, new TextEncoder().encode(`${h}.${c}`))).toBe(true);

    // A kind switched off is not pushed; back on, the push service answers 410 and the subscription is deleted.
    expect((await call("/api/user/notifications/settings/set", { kind: "withdrawal_rejected", push: 0 }, { token: u.token })).data.kinds.withdrawal_rejected).toBe(false);
    await notificationInsert(db, { user_id: u.id, kind: "withdrawal_rejected", params: { withdrawal_id: 1, amount_micro: "1" }, dedupe_key: "t:off", now_ms: 1 });
    const { pushNew } = await import("../../worker/push/send");
    expect(await pushNew(testEnv, db, [u.id], 1)).toBe(0);
    expect(received).toHaveLength(1);
    await notificationInsert(db, { user_id: u.id, kind: "deposit_rejected", params: { deposit_id: 1, amount_micro: "1" }, dedupe_key: "t:gone", now_ms: 2 });
    expect(await pushNew(testEnv, db, [u.id], 2)).toBe(1);
    expect(received).toHaveLength(2);
    expect(await db.select().from(push_subscriptions).where(eq(push_subscriptions.endpoint, endpoint))).toEqual([]);
  });
});

describe("push subscriptions: known push services only, five devices a user (decision 114)", () => {
  afterEach(() => vi.restoreAllMocks());
  const subscribe = (token: string, endpoint: string, keys: { p256dh: string; auth: string }) => call("/api/user/push/subscribe", { endpoint, ...keys }, { token });
  const storedFor = (user_id: number) => db.select().from(push_subscriptions).where(eq(push_subscriptions.user_id, user_id));

  it("refuses an endpoint off the push services' hosts: internal addresses, look-alikes, other ports, credentials, plain http", async () => {
    const u = await newUser();
    const { json } = await browserKeys();
    const foreign = [
      "https://169.254.169.254/latest/meta-data/",
      "https://127.0.0.1/admin",
      "https://localhost/x",
      "https://10.0.0.7/internal",
      "https://[::1]/x",
      "https://proofline.internal/api/admin",
      "https://fcm.googleapis.com.evil.example/fcm/send/x",
      "https://evilfcm.googleapis.com/fcm/send/x",
      "https://a.b.push.apple.com/x",
      "https://push.apple.com/x",
      "https://fcm.googleapis.com:8443/fcm/send/x",
      "https://user:pw@fcm.googleapis.com/fcm/send/x",
      "http://fcm.googleapis.com/fcm/send/x",
    ];
    for (const endpoint of foreign) {
      const r = await subscribe(u.token, endpoint, json);
      expect(r.data.error, endpoint).toBe("push_endpoint_unknown");
    }
    const th = await call("/api/user/push/subscribe", { endpoint: foreign[0], ...json }, { token: u.token, headers: { "accept-language": "th" } });
    expect(th.msg).toBe("ไม่สามารถเปิดการแจ้งเตือนในเบราว์เซอร์นี้ได้ เนื่องจากบริการพุชของเบราว์เซอร์ไม่ใช่บริการที่เราส่งถึงได้");
    expect(await storedFor(u.id)).toEqual([]);
    // The services browsers really use are accepted.
    for (const endpoint of [
      `https://fcm.googleapis.com/fcm/send/${rkey("g")}`,
      `https://updates.push.services.mozilla.com/wpush/v2/${rkey("m")}`,
      `https://web.push.apple.com/${rkey("a")}`,
      `https://wns2-par02p.notify.windows.com/w/?token=${rkey("w")}`,
    ]) {
      expect((await subscribe(u.token, endpoint, json)).code, endpoint).toBe(1);
    }
  });

  it("a subscription stored before the rule, on a foreign host, is deleted rather than fetched", async () => {
    const u = await newUser();
    const { json } = await browserKeys();
    const planted = `https://169.254.169.254/latest/${rkey("ssrf")}`;
    await db.insert(push_subscriptions).values({ user_id: u.id, endpoint: planted, ...json, device: "", created_at_ms: Date.now() });
    const fetched: string[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
      fetched.push(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
      return new Response(null, { status: 201 });
    });
    await notificationInsert(db, { user_id: u.id, kind: "deposit_rejected", params: { deposit_id: 1, amount_micro: "1" }, dedupe_key: "t:planted", now_ms: 3 });
    const { pushNew } = await import("../../worker/push/send");
    await pushNew(testEnv, db, [u.id], 3);
    expect(fetched).toEqual([]);
    expect(await storedFor(u.id)).toEqual([]);
  });

  it("five devices a user: the sixth is refused with the limit in the words, an install subscribing again is not", async () => {
    const u = await newUser();
    const { json } = await browserKeys();
    const endpoints = Array.from({ length: 6 }, (_, i) => `https://push.example.test/five/${rkey(`d${i}`)}`);
    for (const endpoint of endpoints.slice(0, 5)) expect((await subscribe(u.token, endpoint, json)).code).toBe(1);
    const sixth = await subscribe(u.token, endpoints[5], json);
    expect(sixth.code).toBe(0);
    expect(sixth.data.error).toBe("push_subscriptions_limit");
    expect(sixth.msg).toBe("Alerts are already on for 5 devices, the most allowed. Turn them off on a device you no longer use first.");
    // The same install subscribing again (new keys after a browser update) is still its one row.
    expect((await subscribe(u.token, endpoints[0], json)).code).toBe(1);
    expect(await storedFor(u.id)).toHaveLength(5);
    // Another user's install does not move to a user who has five.
    const other = await newUser();
    const theirs = `https://push.example.test/five/${rkey("theirs")}`;
    expect((await subscribe(other.token, theirs, json)).code).toBe(1);
    expect((await subscribe(u.token, theirs, json)).data.error).toBe("push_subscriptions_limit");
    expect((await storedFor(other.id)).map((s) => s.endpoint)).toEqual([theirs]);
    // Turning one device off makes room.
    expect((await call("/api/user/push/unsubscribe", { endpoint: endpoints[1] }, { token: u.token })).code).toBe(1);
    expect((await subscribe(u.token, endpoints[5], json)).code).toBe(1);
  });

  it("parallel subscriptions cannot pass the count together: eight at once store five", async () => {
    const u = await newUser();
    const { json } = await browserKeys();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => subscribe(u.token, `https://push.example.test/race/${rkey(`r${i}`)}`, json)));
    expect(answers.filter((a) => a.code === 1)).toHaveLength(5);
    expect(answers.filter((a) => a.data?.error === "push_subscriptions_limit")).toHaveLength(3);
    expect(await storedFor(u.id)).toHaveLength(5);
  });
});
