import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { argon2id } from "@noble/hashes/argon2.js";
import { base64urlnopad } from "@scure/base";
import { constantTimeEqual, hashPassword, KDF_PARAMS, needsRehash, OWASP_KDF_PARAMS, verifyPassword } from "../../worker/domain/identity/password";
import { hashSessionToken, newSessionToken } from "../../worker/domain/identity/session";
import { isValidAccount, isValidPassword, newInviteCode } from "../../worker/domain/identity/rules";

// Cheap parameters for the property runs; the production profile is checked once below.
const FAST = { m: 64, t: 1, p: 1, dkLen: 32 };

describe("password hashing", () => {
  it("uses argon2id with OWASP's minimum profile and a fresh salt each time", () => {
    // The profile every build that serves users hashes with: only vitest's workerd bundles define
    // the light one (decision 151), and this file runs in Node without it.
    expect(KDF_PARAMS).toEqual({ m: 19456, t: 2, p: 1, dkLen: 32 });
    expect(KDF_PARAMS).toBe(OWASP_KDF_PARAMS);
    const a = hashPassword("demo12345");
    const b = hashPassword("demo12345");
    expect(a).toMatch(new RegExp(`^\\$argon2id\\$v=19\\$m=${KDF_PARAMS.m},t=${KDF_PARAMS.t},p=${KDF_PARAMS.p}\\$`));
    expect(a).not.toBe(b);
    expect(verifyPassword("demo12345", a)).toBe(true);
    expect(verifyPassword("demo12346", a)).toBe(false);
  });

  it("verifies exactly the password that was hashed", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ minLength: 1, maxLength: 40 }), (pw, other) => {
        const h = hashPassword(pw, FAST);
        expect(verifyPassword(pw, h)).toBe(true);
        if (other.normalize("NFKC") !== pw.normalize("NFKC")) expect(verifyPassword(other, h)).toBe(false);
      }),
      { numRuns: 60 },
    );
  });

  it("treats a damaged stored hash as a mismatch, not a crash", () => {
    for (const bad of ["", "plain", "$argon2id$v=19$m=1,t=1,p=1$$", "$argon2i$v=19$m=64,t=1,p=1$YWJj$YWJj"]) {
      expect(verifyPassword("x", bad)).toBe(false);
    }
  });

  it("constant-time comparison agrees with plain equality", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 8 }), fc.uint8Array({ maxLength: 8 }), (a, b) => {
      expect(constantTimeEqual(a, b)).toBe(a.length === b.length && a.every((x, i) => x === b[i]));
    }));
  });
});

/** The PHC string other argon2 verifiers expect: standard base64, no padding. */
const PHC = /^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

/** A PHC string built by hand with Node's own base64 (not the code under test). */
function phcByHand(password: string, salt: Uint8Array, encoding: "base64" | "base64url"): string {
  const { m, t, p } = KDF_PARAMS;
  const hash = argon2id(new TextEncoder().encode(password), salt, KDF_PARAMS);
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString(encoding).replace(/=+$/, "");
  return `$argon2id$v=19$m=${m},t=${t},p=${p}$${b64(salt)}$${b64(hash)}`;
}

// Bytes 0xfb and 0xff are the ones whose base64 needs '+' and '/' (base64url: '-' and '_').
const SALT = Uint8Array.from({ length: 16 }, (_, i) => (i % 2 ? 0xff : 0xfb));

describe("the stored format", () => {
  it("writes the PHC string with standard unpadded base64", () => {
    expect(hashPassword("demo12345")).toMatch(PHC);
    fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 20 }), (pw) => {
      expect(hashPassword(pw, FAST)).toMatch(PHC);
    }), { numRuns: 40 });
  });

  it("verifies the argon2 reference implementation's own output", () => {
    // `echo -n password | argon2 somesalt -id -t 2 -m 16 -p 4 -l 32 -e` (P-H-C/phc-winner-argon2).
    const reference = "$argon2id$v=19$m=65536,t=2,p=4$c29tZXNhbHQ$GpZ3sK/oH9p7VIiV56G/64Zo/8GaUw434IimaPqxwCo";
    expect(verifyPassword("password", reference)).toBe(true);
    expect(verifyPassword("passwore", reference)).toBe(false);
    // Two hashes at 64 MiB each: about a second on an idle machine, much more on a busy one.
  }, 30_000);

  it("verifies a hash encoded by hand in standard base64, and treats it as current", () => {
    const stored = phcByHand("demo12345", SALT, "base64");
    expect(stored).toMatch(PHC);
    expect(stored).toMatch(/[+/]/);
    expect(verifyPassword("demo12345", stored)).toBe(true);
    expect(verifyPassword("demo12346", stored)).toBe(false);
    expect(needsRehash(stored)).toBe(false);
    expect(needsRehash(hashPassword("demo12345"))).toBe(false);
  });

  it("still verifies hashes stored in the earlier base64url form, and marks them for rehashing", () => {
    const old = phcByHand("demo12345", SALT, "base64url");
    expect(old).toMatch(/[-_]/);
    expect(verifyPassword("demo12345", old)).toBe(true);
    expect(verifyPassword("demo12346", old)).toBe(false);
    expect(needsRehash(old)).toBe(true);
  });

  it("marks hashes made with other parameters for rehashing", () => {
    expect(needsRehash(hashPassword("demo12345", FAST))).toBe(true);
    expect(needsRehash("plain")).toBe(true);
  });

  it("refuses a string mixing both alphabets", () => {
    const mixed = phcByHand("demo12345", SALT, "base64").replace("/", "_");
    expect(verifyPassword("demo12345", mixed)).toBe(false);
  });
});

describe("session tokens", () => {
  it("are 256-bit, unique, and stored only as a SHA-256", () => {
    const tokens = new Set(Array.from({ length: 1000 }, newSessionToken));
    expect(tokens.size).toBe(1000);
    const t = [...tokens][0];
    expect(base64urlnopad.decode(t)).toHaveLength(32);
    expect(hashSessionToken(t)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSessionToken(t)).not.toContain(t);
  });
});

describe("account rules", () => {
  it.each(["demo", "Alice_01", "a234567890123456789z"])("%s is a valid account", (a) => expect(isValidAccount(a)).toBe(true));
  it.each(["abc", "1demo", "_demo", "de mo", "démo", "a".repeat(21)])("%s is not", (a) => expect(isValidAccount(a)).toBe(false));
  it("passwords need 8-64 characters with a letter and a digit", () => {
    expect(isValidPassword("demo12345")).toBe(true);
    expect(isValidPassword("пароль123")).toBe(true);
    for (const p of ["demo123", "abcdefgh", "12345678", "a1".repeat(33)]) expect(isValidPassword(p)).toBe(false);
  });
  it("invitation codes use an unambiguous alphabet", () => {
    for (let i = 0; i < 200; i++) expect(newInviteCode()).toMatch(/^[A-HJ-NP-Z2-9]{8}$/);
  });
});
