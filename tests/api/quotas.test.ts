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
import { call, db, newUser, page } from "./helpers";
import { PNG, recharge, rkey, upload } from "./money/helpers";
import { newGuest } from "./service/helpers";
import { sql } from "drizzle-orm";

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
