import { describe, expect, it } from "vitest";
import { Secret } from "otpauth";
import { sha256 } from "@noble/hashes/sha2.js";
import { hex } from "@scure/base";
import { DEV_CARD_KEY, importCardKeys, type CardKeys } from "../../../worker/domain/crypto/sealing";
import { legacyRecoveryCodeHash, matchStep, newRecoveryCodes, otpauthUrl, recoveryCodeHash, stepAt, totpCode } from "../../../worker/domain/identity/two-factor";

// RFC 6238 appendix B: the SHA-1 key is the ASCII string "12345678901234567890".
const RFC_SECRET = Secret.fromLatin1("12345678901234567890").base32;
const RFC_SHA1: [number, string][] = [
  [59, "94287082"],
  [1111111109, "07081804"],
  [1111111111, "14050471"],
  [1234567890, "89005924"],
  [2000000000, "69279037"],
  [20000000000, "65353130"],
];

describe("TOTP codes (RFC 6238, SHA-1)", () => {
  it("the key is the RFC's, in base32", () => {
    expect(RFC_SECRET).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
  });

  it.each(RFC_SHA1)("T=%i gives %s at eight digits, and its last six at six", (t, code) => {
    const step = stepAt(t * 1000);
    expect(totpCode(RFC_SECRET, step, 8)).toBe(code);
    expect(totpCode(RFC_SECRET, step)).toBe(code.slice(2));
  });

  it("accepts the vector's six digits at its own time", () => {
    expect(matchStep(RFC_SECRET, "287082", 59_000, 0)).toBe(1);
  });
});

describe("matchStep: drift and replay", () => {
  const now_ms = 1_700_000_015_000;
  const now = stepAt(now_ms);
  const code = (d: number) => totpCode(RFC_SECRET, now + d);

  it("accepts one step of drift either way", () => {
    expect(matchStep(RFC_SECRET, code(-1), now_ms, 0)).toBe(now - 1);
    expect(matchStep(RFC_SECRET, code(0), now_ms, 0)).toBe(now);
    expect(matchStep(RFC_SECRET, code(1), now_ms, 0)).toBe(now + 1);
  });

  it("refuses two steps either way", () => {
    expect(matchStep(RFC_SECRET, code(-2), now_ms, 0)).toBeNull();
    expect(matchStep(RFC_SECRET, code(2), now_ms, 0)).toBeNull();
  });

  it("refuses a code of a step already used, and any older one", () => {
    expect(matchStep(RFC_SECRET, code(0), now_ms, now)).toBeNull();
    expect(matchStep(RFC_SECRET, code(-1), now_ms, now)).toBeNull();
    // The next step is still open after the current one was used.
    expect(matchStep(RFC_SECRET, code(1), now_ms, now)).toBe(now + 1);
  });

  it("refuses what is not six digits", () => {
    expect(matchStep(RFC_SECRET, "", now_ms, 0)).toBeNull();
    expect(matchStep(RFC_SECRET, ` ${code(0)}`, now_ms, 0)).toBeNull();
    expect(matchStep(RFC_SECRET, "12345a", now_ms, 0)).toBeNull();
  });
});

describe("recovery codes and the otpauth URL", () => {
  const keysOf = async (secret: string) => ((await importCardKeys(secret)) as { keys: CardKeys }).keys;

  it("ten distinct codes, read back whatever the case, spaces or dash", async () => {
    const keys = await keysOf(DEV_CARD_KEY);
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    expect(await recoveryCodeHash(keys, codes[0].toUpperCase().replace("-", " "))).toBe(await recoveryCodeHash(keys, codes[0]));
    expect(await recoveryCodeHash(keys, codes[0])).not.toBe(await recoveryCodeHash(keys, codes[1]));
    expect(legacyRecoveryCodeHash(codes[0].toUpperCase())).toBe(legacyRecoveryCodeHash(codes[0]));
  });

  it("stored keyed (decision 116): not the code's SHA-256, and another deployment's key gives another hash", async () => {
    const code = newRecoveryCodes()[0];
    const stored = await recoveryCodeHash(await keysOf(DEV_CARD_KEY), code);
    expect(stored).toMatch(/^v1:[A-Za-z0-9+/]{43}=$/);
    const plain = hex.encode(sha256(new TextEncoder().encode(code.replace("-", ""))));
    expect(stored).not.toContain(plain);
    expect(legacyRecoveryCodeHash(code)).toBe(plain);
    const other = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
    expect(await recoveryCodeHash(await keysOf(other), code)).not.toBe(stored);
  });

  it("names the issuer, the account and the RFC parameters", () => {
    const url = new URL(otpauthUrl(RFC_SECRET, "alice"));
    expect(url.protocol).toBe("otpauth:");
    expect(url.searchParams.get("secret")).toBe(RFC_SECRET);
    expect(url.searchParams.get("issuer")).toBe("Proofline");
    expect(url.searchParams.get("algorithm")).toBe("SHA1");
    expect(url.searchParams.get("digits")).toBe("6");
    expect(url.searchParams.get("period")).toBe("30");
    expect(decodeURIComponent(url.pathname)).toContain("alice");
  });
});
