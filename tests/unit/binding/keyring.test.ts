import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  cardFingerprint,
  cardFingerprints,
  cardKeySecret,
  DEV_CARD_KEY,
  importCardKeys,
  openCard,
  parseKeyring,
  sealCard,
  sealedKeyId,
  sealedUnderOlderKey,
  type CardKeys,
} from "../../../worker/domain/crypto/sealing";
import { recoveryCodeHash } from "../../../worker/domain/identity/two-factor";

const secretOf = (seed: number) => btoa(String.fromCharCode(...Array.from({ length: 32 }, (_, i) => (seed * 31 + i * 7) & 255)));

async function ring(text: string): Promise<CardKeys> {
  const r = await importCardKeys(text);
  if (r.status !== "ok") throw new Error(`keys: ${r.status}`);
  return r.keys;
}

/** The ring after `n` rotations: key "0" (CARD_KEY) and keys "k1".."kn", newest first. */
const ringText = (n: number) => [...Array.from({ length: n }, (_, i) => `k${n - i}:${secretOf(n - i)}`), `0:${secretOf(0)}`].join(",");

describe("the card keyring (decision 135)", () => {
  it("a value sealed under any generation opens under every later ring, and a new seal names the newest key", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 40 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 }), async (text, sealed_at, rotations) => {
        const opened_at = sealed_at + rotations;
        const then = await ring(ringText(sealed_at));
        const now = await ring(ringText(opened_at));
        const stored = await sealCard(then, text);
        expect(sealedKeyId(stored)).toBe(sealed_at === 0 ? "0" : `k${sealed_at}`);
        expect(await openCard(now, stored)).toEqual({ status: "ok", text });
        // Re-sealing moves it to the newest key, which opens it alone.
        const moved = await sealCard(now, text);
        expect(sealedUnderOlderKey(now, stored)).toBe(rotations > 0);
        expect(sealedUnderOlderKey(now, moved)).toBe(false);
        expect(await openCard(await ring(`${now.id}:${secretOf(opened_at)}`), moved)).toEqual({ status: "ok", text });
      }),
      { numRuns: 40 },
    );
  });

  it("a value whose key has left the ring fails clearly, naming the key", async () => {
    const stored = await sealCard(await ring(ringText(2)), "6222021234567894");
    expect(stored.startsWith("v2.k2.")).toBe(true);
    expect(await openCard(await ring(ringText(1)), stored)).toEqual({ status: "key_unknown", key_id: "k2" });
    const legacy = await sealCard(await ring(DEV_CARD_KEY), "6222021234567894");
    expect(await openCard(await ring(`k1:${secretOf(1)}`), legacy)).toEqual({ status: "key_unknown", key_id: "0" });
  });

  it("the key id is authenticated: relabelling a value to another key of the ring does not open it", async () => {
    const keys = await ring(`a:${secretOf(1)},b:${secretOf(1)}`);
    const stored = await sealCard(keys, "JBSWY3DPEHPK3PXP");
    expect(await openCard(keys, stored.replace("v2.a.", "v2.b."))).toEqual({ status: "unreadable" });
  });

  it("key 0 still writes v1 values (a rollback to a Worker from before the ring reads them)", async () => {
    expect((await sealCard(await ring(DEV_CARD_KEY), "x")).startsWith("v1.")).toBe(true);
  });

  it("CARD_KEYS comes first, CARD_KEY is key 0 at the end; production never gets the development key", () => {
    expect(cardKeySecret({ APP_ENV: "production", CARD_KEYS: `k1:${secretOf(1)}`, CARD_KEY: secretOf(0) })).toBe(`k1:${secretOf(1)},0:${secretOf(0)}`);
    expect(cardKeySecret({ APP_ENV: "production", CARD_KEYS: `k1:${secretOf(1)}` })).toBe(`k1:${secretOf(1)}`);
    expect(cardKeySecret({ APP_ENV: "production", CARD_KEYS: " " })).toBeNull();
    expect(parseKeyring(`k1:${secretOf(1)}, k0:${secretOf(0)}`)?.map((e) => e.id)).toEqual(["k1", "k0"]);
  });

  it("refuses a malformed ring: repeated ids, ids with separators, a key that is not 32 bytes", async () => {
    expect(await importCardKeys(`a:${secretOf(1)},a:${secretOf(2)}`)).toEqual({ status: "invalid" });
    expect(await importCardKeys(`a.b:${secretOf(1)}`)).toEqual({ status: "invalid" });
    expect(await importCardKeys(`k1:${secretOf(1)},0:${btoa("short")}`)).toEqual({ status: "invalid" });
    expect(await importCardKeys(`k1:${secretOf(1)},${secretOf(0)}`)).toMatchObject({ status: "ok" });
  });

  it("a card fingerprinted under an older key is still found; recovery codes name their key", async () => {
    const old = await ring(DEV_CARD_KEY);
    const now = await ring(`k1:${secretOf(1)},0:${DEV_CARD_KEY}`);
    expect(await cardFingerprints(now, "6222021234567894")).toContain(await cardFingerprint(old, "6222021234567894"));
    expect(await recoveryCodeHash(old, "abcde-fghjk")).toMatch(/^v1:/);
    expect(await recoveryCodeHash(now, "abcde-fghjk")).toMatch(/^v2:k1:/);
  });
});
