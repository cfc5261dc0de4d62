/**
 * The card-key rotation end to end on D1 (decision 135): values sealed under key "0", a new key
 * added, `keys:reseal`'s domain function in a dry run (counts, writes nothing), then for real in
 * small batches; after it, the ring without key "0" opens everything and the API still works.
 * Its own workerd: re-sealing touches every sealed row of the database.
 */
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { bank_cards, operator_two_factor, two_factor, withdrawals } from "../../../worker/db/schema";
import { addBankCard } from "../../../worker/domain/binding/binding";
import { cardFingerprint, DEV_CARD_KEY, importCardKeys, openCard, sealCard, sealedKeyId, type CardKeys } from "../../../worker/domain/crypto/sealing";
import { resealAll } from "../../../worker/domain/crypto/reseal";
import { beginSetup, openSecret } from "../../../worker/domain/identity/two-factor";
import { db, newUser, seed, testEnv } from "../helpers";

const NEW_KEY = btoa(String.fromCharCode(...Array.from({ length: 32 }, (_, i) => 200 - i)));
const CARD = "6222021234567894";

async function ring(text: string): Promise<CardKeys> {
  const r = await importCardKeys(text);
  if (r.status !== "ok") throw new Error(r.status);
  return r.keys;
}

beforeAll(() => seed());

describe("keys:reseal", () => {
  it("moves every sealed value to the newest key in batches; a dry run only counts; a second run finds nothing", async () => {
    const old = await ring(DEV_CARD_KEY);
    const rotated = await ring(`k1:${NEW_KEY},0:${DEV_CARD_KEY}`);
    const users = await Promise.all([newUser(), newUser(), newUser()]);
    const cards = [];
    for (const u of users) {
      const r = await addBankCard(db, old, { user_id: u.id, name: "Ann Lee", bank: "Demo Bank", card_number: CARD }, Date.now());
      if (r.status !== "ok") throw new Error(r.status);
      cards.push(r.card);
    }
    const setup = await beginSetup(db, old, { id: users[0].id, account: users[0].account }, Date.now());
    if (setup.status !== "ok") throw new Error(setup.status);
    // One value sealed under the new key already (bound after the deploy): left as it is.
    const fresh = await newUser();
    const freshCard = await addBankCard(db, rotated, { user_id: fresh.id, name: "Bo", bank: "Demo Bank", card_number: CARD }, Date.now());
    if (freshCard.status !== "ok") throw new Error(freshCard.status);
    const freshBefore = freshCard.card.card_number;

    const before = await db.select().from(bank_cards);
    const dry = await resealAll(testEnv.DB, rotated, { dry_run: true });
    const cardsRow = dry.tables.find((t) => t.table === "bank_cards")!;
    expect(cardsRow.stale_by_key["0"]).toBeGreaterThanOrEqual(3);
    expect(cardsRow.stale_by_key.k1).toBeUndefined();
    expect(dry.tables.find((t) => t.table === "two_factor")!.stale_by_key["0"]).toBeGreaterThanOrEqual(1);
    expect(cardsRow.resealed).toBe(0);
    expect(await db.select().from(bank_cards)).toEqual(before);

    let batches = 0;
    const real = await resealAll(testEnv.DB, rotated, { dry_run: false, batch_rows: 2, onBatch: () => batches++ });
    expect(real.batches).toBe(batches);
    expect(batches).toBeGreaterThanOrEqual(2);
    for (const t of real.tables) {
      expect(t.skipped).toEqual([]);
      expect(t.resealed).toBe(Object.values(t.stale_by_key).reduce((a, b) => a + b, 0));
    }

    // Key "0" can now leave the ring: everything opens under k1 alone, fingerprints moved too.
    const onlyNew = await ring(`k1:${NEW_KEY}`);
    for (const c of cards) {
      const row = (await db.select().from(bank_cards).where(eq(bank_cards.id, c.id)))[0];
      expect(sealedKeyId(row.card_number)).toBe("k1");
      expect(await openCard(onlyNew, row.card_number)).toEqual({ status: "ok", text: CARD });
      expect(row.card_fingerprint).toBe(await cardFingerprint(onlyNew, CARD));
    }
    const tf = (await db.select().from(two_factor).where(eq(two_factor.user_id, users[0].id)))[0];
    expect(await openSecret(onlyNew, tf.secret)).toBe(setup.secret);
    expect((await db.select().from(bank_cards).where(eq(bank_cards.id, freshCard.card.id)))[0].card_number).toBe(freshBefore);
    for (const table of [withdrawals, operator_two_factor]) {
      const col = table === withdrawals ? withdrawals.payout_details : operator_two_factor.secret;
      for (const r of await db.select({ v: col }).from(table)) expect(["k1", null]).toContain(sealedKeyId(r.v));
    }

    const again = await resealAll(testEnv.DB, rotated, { dry_run: false });
    expect(again.batches).toBe(0);
    expect(again.tables.every((t) => Object.keys(t.stale_by_key).length === 0)).toBe(true);
  });

  it("a value whose key is not in the ring is skipped and named, not destroyed", async () => {
    const stranger = await ring(`zz:${btoa(String.fromCharCode(...new Uint8Array(32).fill(7)))}`);
    const u = await newUser();
    const sealed = await sealCard(stranger, CARD);
    const [row] = await db
      .insert(bank_cards)
      .values({ user_id: u.id, name: "X", bank: "Y", card_number: sealed, card_fingerprint: "v1:zz", card_last4: "7894", created_at_ms: Date.now(), opens_at_ms: 0 })
      .returning();
    const r = await resealAll(testEnv.DB, await ring(`k1:${NEW_KEY}`), { dry_run: false });
    expect(r.tables.find((t) => t.table === "bank_cards")!.skipped).toEqual([{ pk: row.id, reason: "key_unknown" }]);
    expect((await db.select().from(bank_cards).where(eq(bank_cards.id, row.id)))[0].card_number).toBe(sealed);
  });

  it("binding during a rotation: a card bound under key 0 is still a duplicate under the new ring", async () => {
    const u = await newUser();
    const old = await ring(DEV_CARD_KEY);
    const rotated = await ring(`k2:${NEW_KEY},0:${DEV_CARD_KEY}`);
    expect((await addBankCard(db, old, { user_id: u.id, name: "A", bank: "B", card_number: CARD }, Date.now())).status).toBe("ok");
    expect((await addBankCard(db, rotated, { user_id: u.id, name: "A", bank: "B", card_number: CARD }, Date.now())).status).toBe("duplicate");
  });
});
