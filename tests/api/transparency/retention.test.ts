/**
 * Retention and erasure inside workerd (decisions 132, 133): the pruning job removes exactly what
 * the policy says and no more, in bounded runs; erasing a user leaves no personal field or file,
 * while the ledger check and the whole log's verification still pass. In the log's own workerd
 * (tests/api/transparency/*), since it drains and verifies the whole log.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { NOTIFICATION_KINDS } from "../../../worker/db/schema/notifications";
import { checkLedger } from "../../../worker/domain/ledger/check";
import { eraseUser, erasedAccount, planErasure } from "../../../worker/domain/retention/erase";
import { RETENTION } from "../../../worker/domain/retention/policy";
import { pruneExpired, pruneIfDue } from "../../../worker/domain/retention/prune";
import { logSequencer } from "../../../durable-objects/transparency/log-api";
import { verifyLog } from "../../../scripts/verify-log";
import { call, db, newUser, page, testEnv } from "../helpers";
import { fundedUser, upload } from "../money/helpers";

const DAY = 24 * 3600_000;
/** The job's "now", far ahead: rows written by the API just now are old by then. */
const NOW = Date.now() + 400 * DAY;
const rows = async (q: ReturnType<typeof sql>) => db.all<Record<string, any>>(q);
const hex32 = (n: number) => n.toString(16).padStart(32, "0");

describe("pruneExpired", () => {
  let user = 0;
  beforeAll(async () => {
    user = (await newUser()).id;
    const s = (hash: string, last_seen: number, abs: number, revoked: number | null) =>
      sql`INSERT INTO sessions (token_hash, kind, subject_id, created_at_ms, last_seen_at_ms, idle_timeout_ms, absolute_expires_at_ms, revoked_at_ms) VALUES (${hash}, 'user', ${user}, ${last_seen - DAY}, ${last_seen}, ${DAY}, ${abs}, ${revoked})`;
    for (const q of [
      s("keep-active", NOW - 1000, NOW + 10 * DAY, null),
      s("keep-revoked-29d", NOW - 29 * DAY, NOW + 10 * DAY, NOW - 29 * DAY),
      s("prune-revoked-31d", NOW - 31 * DAY, NOW + 10 * DAY, NOW - 31 * DAY),
      s("prune-absolute-40d", NOW - 41 * DAY, NOW - 40 * DAY, null),
      s("prune-idle-32d", NOW - 33 * DAY, NOW + 10 * DAY, null),
      s("keep-idle-20d", NOW - 21 * DAY, NOW + 10 * DAY, null),
    ])
      await db.run(q);
    const n = (key: string, created: number, read: number | null) =>
      sql`INSERT INTO notifications (user_id, kind, params_json, dedupe_key, created_at_ms, read_at_ms) VALUES (${user}, ${NOTIFICATION_KINDS[0]}, '{}', ${key}, ${created}, ${read})`;
    for (const q of [n("prune-read-91d", NOW - 91 * DAY, NOW - 90 * DAY), n("keep-read-10d", NOW - 10 * DAY, NOW - 9 * DAY), n("keep-unread-200d", NOW - 200 * DAY, null), n("prune-unread-366d", NOW - 366 * DAY, null)]) await db.run(q);
    // 600 sign-ins past the keep time: more than one run takes.
    await db.run(sql`INSERT INTO login_attempts (user_id, at_ms, ok, method, device, ip) SELECT ${user}, ${NOW - 181 * DAY}, 1, 'password', 'old', '10.0.0.0' FROM json_each(${JSON.stringify(Array(600).fill(0))})`);
    await db.run(sql`INSERT INTO login_attempts (user_id, at_ms, ok, method, device, ip) VALUES (${user}, ${NOW - 10 * DAY}, 1, 'password', 'recent', '10.0.0.0')`);
    const u = (id: string, created: number) => sql`INSERT INTO uploads (id, user_id, r2_key, content_type, size_bytes, width, height, created_at_ms) VALUES (${id}, ${user}, ${`uploads/${user}/${id}.png`}, 'image/png', 3, 1, 1, ${created})`;
    for (const [id, age] of [[hex32(1), 8], [hex32(2), 6], [hex32(3), 30], [hex32(4), 30]] as const) {
      await db.run(u(id, NOW - age * DAY));
      await testEnv.UPLOADS.put(`uploads/${user}/${id}.png`, "png");
    }
    // hex32(3) is a profile's ID photo, hex32(4) a chat picture: referenced, never pruned.
    await db.run(sql`INSERT INTO profiles (user_id, name, phone, email, id_photo_id, signature_id, status, submitted_at_ms) VALUES (${user}, 'P', '+1', 'p@example.com', ${hex32(3)}, ${hex32(3)}, 'submitted', ${NOW})`);
    await db.run(sql`INSERT INTO service_conversations (user_id, created_at_ms) VALUES (${user}, ${NOW})`);
    await db.run(sql`INSERT INTO service_uploads (upload_id, conversation_id, author, created_at_ms) SELECT ${hex32(4)}, MAX(id), 'visitor', ${NOW} FROM service_conversations`);
    // An object no row names.
    await testEnv.UPLOADS.put(`uploads/${user}/orphan.png`, "png");
  });

  it("removes what the policy names, only that, a bounded batch a run", async () => {
    const deposit = await fundedUser("100"); // its screenshot: an upload a deposit refers to
    const [screenshot] = await rows(sql`SELECT u.id, u.r2_key FROM uploads u JOIN deposits d ON d.image_id = u.id WHERE d.user_id = ${deposit.id}`);
    const first = await pruneExpired(testEnv, NOW);
    expect(first.login_attempts).toBe(500);
    const second = await pruneExpired(testEnv, NOW);
    expect(second.login_attempts).toBeGreaterThanOrEqual(100); // and the sign-ins this file made, 400 days old by then
    // Another of this file's pages of the bucket may come first: walk it to its end.
    for (let i = 0; i < 5; i += 1) await pruneExpired(testEnv, NOW);

    const sessions = (await rows(sql`SELECT token_hash FROM sessions WHERE subject_id = ${user} AND (token_hash LIKE 'keep-%' OR token_hash LIKE 'prune-%') ORDER BY token_hash`)).map((r) => r.token_hash);
    expect(sessions).toEqual(["keep-active", "keep-idle-20d", "keep-revoked-29d"]);
    const notes = (await rows(sql`SELECT dedupe_key FROM notifications WHERE user_id = ${user} ORDER BY dedupe_key`)).map((r) => r.dedupe_key);
    expect(notes).toEqual(["keep-read-10d", "keep-unread-200d"]);
    expect(await rows(sql`SELECT device FROM login_attempts WHERE user_id = ${user}`)).toEqual([{ device: "recent" }]);
    const kept = (await rows(sql`SELECT id FROM uploads WHERE user_id = ${user} ORDER BY id`)).map((r) => r.id);
    expect(kept).toEqual([hex32(2), hex32(3), hex32(4)]);
    expect(await testEnv.UPLOADS.head(`uploads/${user}/${hex32(1)}.png`)).toBeNull();
    for (const id of kept) expect(await testEnv.UPLOADS.head(`uploads/${user}/${id}.png`)).not.toBeNull();
    expect(await testEnv.UPLOADS.head(`uploads/${user}/orphan.png`)).toBeNull();
    // The deposit's screenshot stays, row and object: money records keep their evidence.
    expect(await rows(sql`SELECT id FROM uploads WHERE id = ${screenshot.id}`)).toHaveLength(1);
    expect(await testEnv.UPLOADS.head(screenshot.r2_key)).not.toBeNull();
  });

  it("deletes one-time codes an hour past their expiry and the local outbox's mail after a week (decisions 138, 139)", async () => {
    const code = (address: string, expires_at_ms: number) =>
      sql`INSERT INTO one_time_codes (purpose, address, user_id, salt, code_hash, tries, sent_at_ms, expires_at_ms) VALUES ('verify_email', ${address}, ${user}, '00', 'x', 0, ${expires_at_ms - 600_000}, ${expires_at_ms})`;
    const mail = (to: string, at_ms: number) => sql`INSERT INTO dev_outbox (channel, "to", subject, text, created_at_ms) VALUES ('email', ${to}, 's', 't', ${at_ms})`;
    for (const q of [code("prune-code@x.test", NOW - 2 * 3600_000), code("keep-code@x.test", NOW - 30 * 60_000), mail("prune-mail@x.test", NOW - 8 * DAY), mail("keep-mail@x.test", NOW - 6 * DAY)]) await db.run(q);
    for (let i = 0; i < 3; i += 1) await pruneExpired(testEnv, NOW);
    expect((await rows(sql`SELECT address FROM one_time_codes WHERE address LIKE '%-code@x.test'`)).map((r) => r.address)).toEqual(["keep-code@x.test"]);
    expect((await rows(sql`SELECT "to" FROM dev_outbox WHERE "to" LIKE '%-mail@x.test'`)).map((r) => r.to)).toEqual(["keep-mail@x.test"]);
  });

  it("leaves a fresh orphan object alone until its grace period has passed", async () => {
    await testEnv.UPLOADS.put(`uploads/${user}/fresh-orphan.png`, "png");
    for (let i = 0; i < 3; i += 1) await pruneExpired(testEnv, Date.now());
    expect(await testEnv.UPLOADS.head(`uploads/${user}/fresh-orphan.png`)).not.toBeNull();
    expect(RETENTION.orphan_upload_ms).toBe(7 * DAY);
  });

  it("runs from the cron once an hour", async () => {
    const hour = Math.floor(Date.now() / 3600_000) * 3600_000;
    expect(await pruneIfDue(testEnv, hour + 16 * 60_000)).toBeNull();
    expect(await pruneIfDue(testEnv, hour + 17 * 60_000)).not.toBeNull();
  });
});

describe("eraseUser", () => {
  const operator = async () => Number((await rows(sql`SELECT id FROM operators ORDER BY id LIMIT 1`))[0].id);

  async function withPersonalData(u: { token: string; password: string }) {
    const photo = await upload(u.token);
    const signature = await upload(u.token);
    expect((await call("/api/user/infos", { name: "Erin Example", phone: "+4915112345678", email: "erin@example.com", id_photo: photo.data.url, signature: signature.data.url }, { token: u.token })).code).toBe(1);
    expect((await call("/api/user/add_wallet", { chain: "TRC20", address: "TCvAsN4KpsZMAYTpHeEYgt1YuoBPF4HT9S", password: u.password }, { token: u.token })).code).toBe(1);
    return [photo.data.id, signature.data.id] as string[];
  }

  const personal = async (user_id: number) =>
    rows(sql`SELECT
      (SELECT COUNT(*) FROM profiles WHERE user_id = ${user_id}) AS profiles,
      (SELECT COUNT(*) FROM uploads WHERE user_id = ${user_id}) AS uploads,
      (SELECT COUNT(*) FROM wallets WHERE user_id = ${user_id}) AS wallets,
      (SELECT COUNT(*) FROM sessions WHERE kind = 'user' AND subject_id = ${user_id}) AS sessions,
      (SELECT COUNT(*) FROM login_attempts WHERE user_id = ${user_id}) AS login_attempts,
      (SELECT COUNT(*) FROM known_devices WHERE user_id = ${user_id}) AS known_devices,
      (SELECT COUNT(*) FROM notifications WHERE user_id = ${user_id}) AS notifications`);

  it("refuses a user with money unless told, and then keeps the books and the log whole", async () => {
    const rich = await fundedUser("500");
    const files = await withPersonalData(rich);
    const op = await operator();
    const refused = await eraseUser(db, testEnv.UPLOADS, rich.id, { operator_id: op, reason: "request" }, Date.now());
    expect(refused.status).toBe("has_money");
    expect((await personal(rich.id))[0].profiles).toBe(1);

    const leavesBefore = (await rows(sql`SELECT COUNT(*) AS n FROM log_leaves`))[0].n;
    const r = await eraseUser(db, testEnv.UPLOADS, rich.id, { operator_id: op, reason: "court order", allow_open: true }, Date.now());
    expect(r.status).toBe("ok");
    expect(Object.values((await personal(rich.id))[0]).every((n) => Number(n) === 0)).toBe(true);
    for (const id of files) expect(await testEnv.UPLOADS.list({ prefix: `uploads/${rich.id}/${id}` }).then((l) => l.objects.length)).toBe(0);
    // The money stays where the ledger says it is, and the log keeps every leaf.
    expect((await rows(sql`SELECT COALESCE(SUM(balance_micro), 0) AS b FROM ledger_accounts WHERE user_id = ${rich.id}`))[0].b).toBe(500_000_000);
    expect((await checkLedger(db)).ok).toBe(true);
    await logSequencer(testEnv).drain();
    expect((await rows(sql`SELECT COUNT(*) AS n FROM log_leaves`))[0].n).toBeGreaterThanOrEqual(leavesBefore);
    const failed: string[] = [];
    const v = await verifyLog({ fetch: (path, init) => page(path, init), say: (ok, line) => void (ok ? null : failed.push(line)) });
    expect(failed).toEqual([]);
    expect(v.checks).toBeGreaterThan(3);
    // Nothing the log publishes names the account or its personal fields.
    const leaves = (await rows(sql`SELECT leaf FROM log_leaves`)).map((l) => l.leaf).join("\n");
    for (const word of [rich.account, "Erin Example", "erin@example.com", "+4915112345678"]) expect(leaves).not.toContain(word);
  });

  it("erases a user without money, signs them out for good and audits it", async () => {
    const u = await newUser();
    await withPersonalData(u);
    const dry = await planErasure(db, u.id);
    expect(dry?.rows.profiles).toBe(1);
    expect(dry?.files).toHaveLength(2);
    expect((await personal(u.id))[0].profiles).toBe(1); // the plan changed nothing
    const r = await eraseUser(db, testEnv.UPLOADS, u.id, { operator_id: await operator(), reason: "user request" }, Date.now());
    expect(r.status).toBe("ok");
    expect(Object.values((await personal(u.id))[0]).every((n) => Number(n) === 0)).toBe(true);
    expect(await rows(sql`SELECT account, lang FROM users WHERE id = ${u.id}`)).toEqual([{ account: erasedAccount(u.id), lang: null }]);
    expect((await call("/api/user/user", undefined, { token: u.token })).code).not.toBe(1);
    expect((await call("/api/user/login", { account: u.account, password: u.password })).code).not.toBe(1);
    const [audit] = await rows(sql`SELECT action, reason FROM audit_log WHERE target = ${`user:${u.id}`}`);
    expect(audit).toEqual({ action: "user.erase", reason: "user request" });
    // Nothing left to erase: a second run changes nothing.
    const again = await planErasure(db, u.id);
    expect(Object.values(again!.rows).every((n) => n === 0)).toBe(true);
  });
});
