import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { constantTimeEqual, hashPassword, KDF_PARAMS, verifyPassword } from "../../worker/domain/identity/password";
import { base64urlnopad } from "../../worker/domain/identity/encoding";
import { hashSessionToken, newSessionToken } from "../../worker/domain/identity/session";
import { isValidAccount, isValidPassword, newInviteCode } from "../../worker/domain/identity/rules";

// Cheap parameters for the property runs; the production profile is checked once below.
const FAST = { m: 64, t: 1, p: 1, dkLen: 32 };

describe("password hashing", () => {
  it("uses argon2id with OWASP's minimum profile and a fresh salt each time", () => {
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

describe("session tokens", () => {
  it("are 256-bit, unique, and stored only as a SHA-256", () => {
    const tokens = new Set(Array.from({ length: 1000 }, newSessionToken));
    expect(tokens.size).toBe(1000);
    const t = [...tokens][0];
    expect(base64urlnopad.decode(t)).toHaveLength(32);
    expect(hashSessionToken(t)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSessionToken(t)).not.toContain(t);
  });

  it("base64url round-trips any bytes", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
      expect(Array.from(base64urlnopad.decode(base64urlnopad.encode(bytes)))).toEqual(Array.from(bytes));
    }));
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
