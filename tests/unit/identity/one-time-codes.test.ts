/**
 * The rules of one-time codes (decision 138) as pure functions: expiry, tries, the resend
 * window, one live code per purpose and address, the constant-time compare and the unbiased draw.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CODE_RULES,
  codeHash,
  constantTimeEqual,
  judgeAttempt,
  newCode,
  newSalt,
  resendWaitMs,
  storedCode,
  type StoredCode,
} from "../../../worker/domain/identity/one-time-codes";

const T0 = 1_800_000_000_000;
const code6 = fc.integer({ min: 0, max: 999_999 }).map((n) => String(n).padStart(6, "0"));
const issue = (code: string, now_ms = T0) => storedCode("verify_email", "a@example.com", code, newSalt(), now_ms, { user_id: 1, sent_to: "a@example.com" });
const attempt = (row: StoredCode, code: string, now_ms: number) => judgeAttempt(row, "verify_email", "a@example.com", code, now_ms);
/** The row after an attempt: the tries it counted. */
const after = (row: StoredCode, tries: number): StoredCode => ({ ...row, tries });

describe("a code", () => {
  it("is six digits drawn by the CSPRNG", () => {
    for (let i = 0; i < 200; i++) expect(newCode()).toMatch(/^\d{6}$/);
  });

  it("is drawn without modulo bias: draws past the last whole million are thrown away, not folded", () => {
    const limit = Math.floor(2 ** 32 / 1_000_000) * 1_000_000;
    // A draw at the limit would map to 000000 by modulo; it is redrawn instead.
    const draws = [limit, 2 ** 32 - 1, 123_456];
    expect(newCode(() => draws.shift()!)).toBe("123456");
    fc.assert(fc.property(fc.integer({ min: 0, max: limit - 1 }), (d) => newCode(() => d) === String(d % 1_000_000).padStart(6, "0")));
  });

  it("is stored as a salted HMAC, never as itself, and the hash is bound to purpose and address", () => {
    fc.assert(
      fc.property(code6, (code) => {
        const row = issue(code);
        expect(row.code_hash).not.toContain(code);
        expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
        expect(codeHash(row.salt, "reset_password", "a@example.com", code)).not.toBe(row.code_hash);
        expect(codeHash(row.salt, "verify_email", "b@example.com", code)).not.toBe(row.code_hash);
        // Another salt, another hash: equal codes look unrelated at rest.
        expect(issue(code).code_hash).not.toBe(row.code_hash);
      }),
      { numRuns: 50 },
    );
  });
});

describe("an attempt", () => {
  it("with the right code inside ten minutes and five tries succeeds", () => {
    fc.assert(
      fc.property(code6, fc.integer({ min: 0, max: CODE_RULES.ttl_ms - 1 }), fc.integer({ min: 0, max: CODE_RULES.max_tries - 1 }), (code, elapsed, tries) => {
        const row = after(issue(code), tries);
        expect(attempt(row, code, T0 + elapsed)).toEqual({ verdict: { status: "ok" }, tries: tries + 1 });
      }),
      { numRuns: 100 },
    );
  });

  it("expires at ten minutes: from then on even the right code is refused", () => {
    fc.assert(
      fc.property(code6, fc.integer({ min: 0, max: 10 * CODE_RULES.ttl_ms }), (code, late) => {
        const row = issue(code);
        expect(attempt(row, code, T0 + CODE_RULES.ttl_ms + late).verdict).toEqual({ status: "code_expired" });
      }),
      { numRuns: 100 },
    );
  });

  it("five wrong tries void the code: the sixth attempt is refused even when right", () => {
    fc.assert(
      fc.property(code6, fc.array(code6, { minLength: 5, maxLength: 5 }), (code, guesses) => {
        fc.pre(guesses.every((g) => g !== code));
        let row = issue(code);
        guesses.forEach((g, i) => {
          const r = attempt(row, g, T0 + 1000);
          expect(r.verdict).toEqual({ status: "code_wrong", tries_left: CODE_RULES.max_tries - i - 1 });
          row = after(row, r.tries);
        });
        expect(attempt(row, code, T0 + 2000).verdict).toEqual({ status: "code_void" });
      }),
      { numRuns: 100 },
    );
  });

  it("anything but six digits is wrong, and counts", () => {
    const row = issue("123456");
    for (const bad of ["", "12345", "1234567", "12345a", " 123456", "１２３４５６"]) expect(attempt(row, bad, T0).verdict.status).toBe("code_wrong");
  });

  it("at no code at all is refused", () => {
    expect(judgeAttempt(undefined, "verify_email", "a@example.com", "123456", T0).verdict).toEqual({ status: "code_missing" });
  });
});

describe("the resend window and one live code", () => {
  it("a new code can be sent only 60 s after the last, and the wait left is exact", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5 * CODE_RULES.resend_after_ms }), (elapsed) => {
        const wait = resendWaitMs(issue("000000"), T0 + elapsed);
        expect(wait).toBe(Math.max(0, CODE_RULES.resend_after_ms - elapsed));
      }),
    );
    expect(resendWaitMs(undefined, T0)).toBe(0);
  });

  it("a resend replaces the code: the old one no longer works, the new one does", () => {
    fc.assert(
      fc.property(code6, code6, (first, second) => {
        fc.pre(first !== second);
        const resent_at = T0 + CODE_RULES.resend_after_ms;
        // The stored row of a (purpose, address) is the last code sent: there is only one.
        const live = issue(second, resent_at);
        expect(attempt(live, first, resent_at + 1).verdict.status).toBe("code_wrong");
        expect(attempt(live, second, resent_at + 1).verdict.status).toBe("ok");
      }),
      { numRuns: 100 },
    );
  });
});

describe("constant-time compare", () => {
  it("agrees with === for every pair of strings", () => {
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => constantTimeEqual(a, b) === (a === b)));
    fc.assert(fc.property(fc.string(), (a) => constantTimeEqual(a, a)));
  });

  it("looks at every character: a difference in the last one is found", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{64}$/), fc.integer({ min: 0, max: 63 }), (h, i) => {
        const flipped = h.slice(0, i) + (h[i] === "0" ? "1" : "0") + h.slice(i + 1);
        expect(constantTimeEqual(h, flipped)).toBe(false);
      }),
    );
  });

  it("has no early return: its source ORs every difference and returns once", async () => {
    const src = constantTimeEqual.toString();
    expect(src).toMatch(/\|=/);
    expect(src.match(/return/g)).toHaveLength(2); // the length check (public) and the end
  });
});
