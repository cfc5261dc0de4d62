import { describe, expect, it } from "vitest";
import { cardFingerprint, cardKeySecret, DEV_CARD_KEY, importCardKeys, isSealed, openCard, sealCard, type CardKeys } from "../../../worker/domain/crypto/sealing";

const CARD = "6222021234567894";
const otherSecret = btoa(String.fromCharCode(...Array.from({ length: 32 }, (_, i) => i + 1)));

async function keysOf(secret: string): Promise<CardKeys> {
  const r = await importCardKeys(secret);
  if (r.status !== "ok") throw new Error(`keys: ${r.status}`);
  return r.keys;
}

describe("card sealing", () => {
  it("round-trips, in the v1.<iv>.<ciphertext> format, without the digits in the clear", async () => {
    const keys = await keysOf(DEV_CARD_KEY);
    const sealed = await sealCard(keys, CARD);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9+/]{16}\.[A-Za-z0-9+/]+=*$/);
    expect(sealed).not.toContain(CARD);
    expect(isSealed(sealed)).toBe(true);
    expect(await openCard(keys, sealed)).toEqual({ status: "ok", text: CARD });
  });

  it("uses a different IV each time", async () => {
    const keys = await keysOf(DEV_CARD_KEY);
    const seals = await Promise.all(Array.from({ length: 20 }, () => sealCard(keys, CARD)));
    expect(new Set(seals.map((s) => s.split(".")[1])).size).toBe(20);
    expect(new Set(seals).size).toBe(20);
  });

  it("refuses a tampered value or another key", async () => {
    const keys = await keysOf(DEV_CARD_KEY);
    const sealed = await sealCard(keys, CARD);
    const [v, iv, ct] = sealed.split(".");
    const bytes = Uint8Array.from(atob(ct), (c) => c.charCodeAt(0));
    bytes[0] ^= 1;
    const flipped = `${v}.${iv}.${btoa(String.fromCharCode(...bytes))}`;
    expect(await openCard(keys, flipped)).toEqual({ status: "unreadable" });
    const otherIv = btoa(String.fromCharCode(...new Uint8Array(12)));
    expect(await openCard(keys, `${v}.${otherIv}.${ct}`)).toEqual({ status: "unreadable" });
    expect(await openCard(keys, "v1.not base64.x")).toEqual({ status: "unreadable" });
    expect(await openCard(await keysOf(otherSecret), sealed)).toEqual({ status: "unreadable" });
    expect(await openCard(null, sealed)).toEqual({ status: "key_missing" });
  });

  it("reads values from before encryption as they are", async () => {
    expect(await openCard(null, CARD)).toEqual({ status: "ok", text: CARD });
    expect(await openCard(await keysOf(DEV_CARD_KEY), `Demo Bank · Ann · ${CARD}`)).toEqual({ status: "ok", text: `Demo Bank · Ann · ${CARD}` });
  });
});

describe("card fingerprints", () => {
  it("are stable for a number and key, differ between numbers and keys, and hide the number", async () => {
    const keys = await keysOf(DEV_CARD_KEY);
    const a = await cardFingerprint(keys, CARD);
    expect(a).toMatch(/^v1:/);
    expect(await cardFingerprint(await keysOf(DEV_CARD_KEY), CARD)).toBe(a);
    expect(await cardFingerprint(keys, "4111111111111111")).not.toBe(a);
    expect(await cardFingerprint(await keysOf(otherSecret), CARD)).not.toBe(a);
    expect(a).not.toContain(CARD);
  });
});

describe("the key", () => {
  it("production never falls back to the public development key", () => {
    expect(cardKeySecret({ APP_ENV: "production" })).toBeNull();
    expect(cardKeySecret({ APP_ENV: "production", CARD_KEY: otherSecret })).toBe(otherSecret);
    expect(cardKeySecret({ APP_ENV: "test" })).toBe(DEV_CARD_KEY);
    expect(cardKeySecret({ APP_ENV: "local", CARD_KEY: otherSecret })).toBe(otherSecret);
  });

  it("must be 32 bytes of base64", async () => {
    expect(await importCardKeys(null)).toEqual({ status: "missing" });
    expect(await importCardKeys(btoa("too short"))).toEqual({ status: "invalid" });
    expect(await importCardKeys("not base64 at all!")).toEqual({ status: "invalid" });
    expect((await importCardKeys(otherSecret)).status).toBe("ok");
  });
});
