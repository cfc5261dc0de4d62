/**
 * Per-user quotas, each held by the database statement that writes (so parallel requests cannot
 * pass together), each refused with a clear message: uploads a day (files and bytes), deposits
 * waiting for review, a guest's chat pictures; and a page request body over its limit is refused
 * before Remix parses it.
 */
import { describe, expect, it } from "vitest";
import { MAX_PENDING_DEPOSITS } from "../../worker/domain/deposits/deposits";
import { UPLOAD_QUOTA } from "../../worker/domain/uploads/quota";
import { PAGE_BODY_MAX_BYTES } from "../../worker/page-security";
import { call, db, newUser, page, seed, uniqueIPv4, uniqueIPv6Prefix } from "./helpers";
import { PNG, recharge, rkey, upload } from "./money/helpers";
import { newGuest } from "./service/helpers";
import { eq, sql } from "drizzle-orm";
import { login_throttle } from "../../worker/db/schema";
import { admitGuest, GUEST_LIMITS } from "../../worker/domain/service/guest-limits";

const count = async (q: string) => Number(((await db.all<{ n: number }>(sql.raw(q)))[0] ?? { n: 0 }).n);

describe("quotas", () => {
  it("uploads: 60 in 24 hours, counted in the insert: 70 at once store exactly 60, the rest hear why", async () => {
    const u = await newUser();
    const answers = await Promise.all(Array.from({ length: UPLOAD_QUOTA.files + 10 }, () => upload(u.token)));
    const stored = answers.filter((a) => a.code === 1);
    const refused = answers.filter((a) => a.code !== 1);
    expect(stored).toHaveLength(UPLOAD_QUOTA.files);
    expect(refused).toHaveLength(10);
    for (const r of refused) {
      expect(r.status).toBe(429);
      expect(r.msg).toBe(`You have reached today's upload limit (${UPLOAD_QUOTA.files} pictures or 30 MB in 24 hours). Please try again later.`);
    }
    expect(await count(`SELECT COUNT(*) AS n FROM uploads WHERE user_id = ${u.id}`)).toBe(UPLOAD_QUOTA.files);
    // In Thai, too; and another user is not affected.
    const th = await call("/api/common/upload", (() => { const f = new FormData(); f.set("file", new File([PNG], "a.png", { type: "image/png" })); return f; })(), { token: u.token, headers: { lang: "th" } });
    expect(th.msg).toContain("อัปโหลดครบขีดจำกัด");
    expect((await upload((await newUser()).token)).code).toBe(1);
  });

  it("uploads: the bytes count too, and yesterday's uploads no longer do", async () => {
    const u = await newUser();
    // A day's bytes already used (written as the quota counts them): the next picture is refused.
    await db.run(sql`INSERT INTO uploads (id, user_id, r2_key, content_type, size_bytes, width, height, created_at_ms)
      VALUES (${rkey("b").replace(/[^0-9a-z]/g, "").padEnd(32, "0").slice(0, 32)}, ${u.id}, 'x', 'image/png', ${UPLOAD_QUOTA.bytes - 10}, 1, 1, ${Date.now() - 1000})`);
    expect((await upload(u.token)).status).toBe(429);
    await db.run(sql`UPDATE uploads SET created_at_ms = ${Date.now() - UPLOAD_QUOTA.window_ms - 1} WHERE user_id = ${u.id}`);
    expect((await upload(u.token)).code).toBe(1);
  });

  it("a guest's chat pictures count per conversation", async () => {
    const g = await newGuest();
    const send = () => {
      const f = new FormData();
      f.set("file", new File([PNG], "p.png", { type: "image/png" }));
      return call(`/api/service/upload`, f, { headers: g.caller.headers });
    };
    for (let i = 0; i < UPLOAD_QUOTA.files; i += 1) expect((await send()).code).toBe(1);
    const over = await send();
    expect(over.status).toBe(429);
    expect(over.msg).toContain("upload limit");
    // Another guest has their own.
    const other = await newGuest();
    const f = new FormData();
    f.set("file", new File([PNG], "p.png", { type: "image/png" }));
    expect((await call(`/api/service/upload`, f, { headers: other.caller.headers })).code).toBe(1);
  });

  it(`deposits: ${MAX_PENDING_DEPOSITS} waiting for review at once; 8 submitted together store exactly ${MAX_PENDING_DEPOSITS}`, async () => {
    const u = await newUser();
    const answers = await Promise.all(Array.from({ length: 8 }, () => recharge(u.token, "100")));
    expect(answers.filter((a) => a.code === 1)).toHaveLength(MAX_PENDING_DEPOSITS);
    const refused = answers.filter((a) => a.code !== 1);
    expect(refused).toHaveLength(3);
    for (const r of refused) expect(r.msg).toBe(`You already have ${MAX_PENDING_DEPOSITS} deposits waiting for review. Please wait until they are checked before submitting another.`);
    expect(await count(`SELECT COUNT(*) AS n FROM deposits WHERE user_id = ${u.id}`)).toBe(MAX_PENDING_DEPOSITS);
    // At the limit, a retry of an accepted deposit (same key, same body) is still answered as itself.
    const img = await upload(u.token);
    const channel = (await call("/api/index/recharge_way")).data.find((c: { chain: string }) => c.chain === "TRC20");
    const key = rkey("again");
    const body = { channel_id: channel.id, amount: "100", tx_hash: `0x${key.replace(/[^0-9a-z]/gi, "")}`, image: img.data.url };
    await db.run(sql`UPDATE deposits SET status = 'rejected' WHERE id = (SELECT MIN(id) FROM deposits WHERE user_id = ${u.id})`);
    const first = await call("/api/user/recharge", body, { token: u.token, headers: { "idempotency-key": key } });
    expect(first.code).toBe(1);
    const replay = await call("/api/user/recharge", body, { token: u.token, headers: { "idempotency-key": key } });
    expect(replay.data.id).toBe(first.data.id);
    expect((await recharge(u.token, "100")).msg).toContain("waiting for review");
  });

  it("a page request body over the limit is refused with 413 before Remix reads it, declared or chunked", async () => {
    const big = new Uint8Array(PAGE_BODY_MAX_BYTES + 1);
    const declared = await page("/pages/user/login", { method: "POST", body: big, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(declared.status).toBe(413);
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 20; i += 1) c.enqueue(new Uint8Array(64 * 1024));
        c.close();
      },
    });
    const chunked = await page("/pages/user/login", { method: "POST", body: stream, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(chunked.status).toBe(413);
    // Within the limit the page's action runs as always (a wrong password is its answer, not a 413).
    const ok = await page("/pages/user/login", { method: "POST", body: "account=nobody1&password=wrongpass1", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(ok.status).not.toBe(413);
    expect(ok.status).toBeLessThan(500);
  });
});

describe("guests in customer service: per network and in total (decision 115)", () => {
  const from = (ip: string) => ({ headers: { "cf-connecting-ip": ip } });
  const picture = () => {
    const f = new FormData();
    f.set("file", new File([PNG], "p.png", { type: "image/png" }));
    return f;
  };

  it(`new guest conversations: ${GUEST_LIMITS.conversation.network_hour} an hour from one network, then 429 in the visitor's language`, async () => {
    await seed();
    const ip = uniqueIPv4();
    for (let i = 0; i < GUEST_LIMITS.conversation.network_hour; i++) expect((await call("/api/service/open", {}, from(ip))).code, `guest ${i + 1}`).toBe(1);
    const refused = await call("/api/service/open", {}, from(ip));
    expect(refused.status).toBe(429);
    expect(refused.data.error).toBe("guest_conversations_network");
    expect(refused.data.retry_after_ms).toBeGreaterThan(50 * 60_000);
    expect(refused.msg).toBe("Too many new conversations from your network. Please try again later, or sign in to write to us.");
    const th = await call("/api/service/open", {}, { headers: { "cf-connecting-ip": ip, lang: "th" } });
    expect(th.msg).toBe("มีการเริ่มบทสนทนาใหม่จากเครือข่ายของคุณมากเกินไป โปรดลองอีกครั้งภายหลัง หรือเข้าสู่ระบบเพื่อติดต่อเรา");
    // Another network, a guest who already has a conversation, and a signed-in user are not held back.
    expect((await call("/api/service/open", {}, from(uniqueIPv4()))).code).toBe(1);
    const g = await newGuest();
    expect((await call("/api/service/open", {}, { headers: { ...g.caller.headers, "cf-connecting-ip": ip } })).code).toBe(1);
    expect((await call("/api/service/open", {}, { token: (await newUser()).token, headers: { "cf-connecting-ip": ip } })).code).toBe(1);
  });

  it("an IPv6 network is its /64: changing the rest of the address does not make a new guest", async () => {
    await seed();
    const prefix = uniqueIPv6Prefix();
    for (let i = 0; i < GUEST_LIMITS.conversation.network_hour; i++) expect((await call("/api/service/open", {}, from(`${prefix}::${i + 1}`))).code).toBe(1);
    expect((await call("/api/service/open", {}, from(`${prefix}:ffff:1:2:3`))).data.error).toBe("guest_conversations_network");
  });

  it(`guest pictures: ${GUEST_LIMITS.upload.network_hour} an hour from one network, across conversations`, async () => {
    const ip = uniqueIPv4();
    // Each picture from a new conversation: the per-conversation quota alone would never stop this.
    const guests = await Promise.all(Array.from({ length: 4 }, () => newGuest()));
    let sent = 0;
    for (let i = 0; i < GUEST_LIMITS.upload.network_hour; i++) {
      const g = guests[i % guests.length];
      if ((await call("/api/service/upload", picture(), { headers: { ...g.caller.headers, "cf-connecting-ip": ip } })).code === 1) sent++;
    }
    expect(sent).toBe(GUEST_LIMITS.upload.network_hour);
    const refused = await call("/api/service/upload", picture(), { headers: { ...guests[0].caller.headers, "cf-connecting-ip": ip } });
    expect(refused.status).toBe(429);
    expect(refused.data.error).toBe("guest_uploads_network");
    expect(refused.msg).toBe("Too many pictures sent from your network. Please try again later, or sign in to send more.");
    // A signed-in user's pictures are theirs to count (decision 100), not the network's.
    const u = await newUser();
    expect((await call("/api/service/open", {}, { token: u.token })).code).toBe(1);
    expect((await call("/api/service/upload", picture(), { token: u.token, headers: { "cf-connecting-ip": ip } })).code).toBe(1);
  });

  it("parallel guests cannot pass a network's limit together", async () => {
    await seed();
    const ip = uniqueIPv4();
    const answers = await Promise.all(Array.from({ length: 12 }, () => call("/api/service/open", {}, from(ip))));
    expect(answers.filter((a) => a.code === 1)).toHaveLength(GUEST_LIMITS.conversation.network_hour);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(12 - GUEST_LIMITS.conversation.network_hour);
  });

  it(`a network's day holds ${GUEST_LIMITS.conversation.network_day} conversations across its hours, and a new day starts again`, async () => {
    const network = `${uniqueIPv4()}-day`;
    const t0 = Date.now();
    const hour = 3600_000;
    let admitted = 0;
    // Five an hour, hour after hour, until the day's are taken.
    for (let h = 0; h < 6; h++) {
      for (let i = 0; i < GUEST_LIMITS.conversation.network_hour; i++) if ((await admitGuest(db, "conversation", network, t0 + h * hour + i)).status === "ok") admitted++;
    }
    expect(admitted).toBe(GUEST_LIMITS.conversation.network_day);
    const late = await admitGuest(db, "conversation", network, t0 + 6 * hour);
    expect(late).toMatchObject({ status: "network" });
    expect((late as { retry_after_ms: number }).retry_after_ms).toBeGreaterThan(17 * hour);
    expect((await admitGuest(db, "conversation", network, t0 + 24 * hour + 1)).status).toBe("ok");
  });

  it("everyone's guest conversations and pictures have a daily total: full, a new network is refused too", async () => {
    await seed();
    const ip = uniqueIPv4();
    const now_ms = Date.now();
    for (const thing of ["conversation", "upload"] as const) {
      const key = `guest:${thing}:day:all`;
      // The day's total as if it had been taken (kept aside and put back: the file's workerd is shared).
      const before = await db.query.login_throttle.findFirst({ where: eq(login_throttle.key, key) });
      await db
        .insert(login_throttle)
        .values({ key, failures: GUEST_LIMITS[thing].total_day, window_started_at_ms: now_ms, locked_until_ms: 0 })
        .onConflictDoUpdate({ target: login_throttle.key, set: { failures: GUEST_LIMITS[thing].total_day, window_started_at_ms: now_ms } });
      try {
        if (thing === "conversation") {
          const refused = await call("/api/service/open", {}, from(ip));
          expect(refused.status).toBe(429);
          expect(refused.data.error).toBe("guest_conversations_total");
          expect(refused.msg).toBe("Customer service is taking no more conversations from guests today. Please sign in to write to us.");
          // Without an address (a script calling in-process) the total counts all the same.
          expect((await call("/api/service/open", {})).data.error).toBe("guest_conversations_total");
        } else {
          const g = await newGuest(); // the conversations' total is not the full one here
          const refused = await call("/api/service/upload", picture(), { headers: { ...g.caller.headers, "cf-connecting-ip": ip } });
          expect(refused.status).toBe(429);
          expect(refused.data.error).toBe("guest_uploads_total");
          expect(refused.msg).toBe("Customer service is taking no more pictures from guests today. Please sign in to send pictures.");
        }
      } finally {
        if (before) await db.update(login_throttle).set(before).where(eq(login_throttle.key, key));
        else await db.delete(login_throttle).where(eq(login_throttle.key, key));
      }
    }
    // Signed-in users are not guests: their conversation opens whatever the guests' total.
    expect((await call("/api/service/open", {}, { token: (await newUser()).token })).code).toBe(1);
  });
});

