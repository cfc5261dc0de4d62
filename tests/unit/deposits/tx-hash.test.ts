import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeTxHash } from "../../../worker/domain/deposits/deposits";

describe("normalizeTxHash", () => {
  it("lower-cases hexadecimal hashes, with or without 0x, and trims", () => {
    expect(normalizeTxHash("  0xABCdef01  ")).toBe("0xabcdef01");
    expect(normalizeTxHash("A1B2C3")).toBe("a1b2c3");
    expect(normalizeTxHash("0XAB")).toBe("0xab");
  });

  it("keeps other text as typed (only trimmed): its case may matter", () => {
    expect(normalizeTxHash(" Tx-ABC_1 ")).toBe("Tx-ABC_1");
    expect(normalizeTxHash("0xZZ")).toBe("0xZZ");
  });

  it("is idempotent, and one hex hash in any case normalizes to one value", () => {
    const hex = fc.stringMatching(/^(0x)?[0-9a-f]{1,64}$/);
    fc.assert(
      fc.property(hex, fc.array(fc.boolean(), { minLength: 66, maxLength: 66 }), (h, upper) => {
        const mixed = [...h].map((ch, i) => (upper[i] ? ch.toUpperCase() : ch)).join("");
        expect(normalizeTxHash(mixed)).toBe(normalizeTxHash(h));
        expect(normalizeTxHash(normalizeTxHash(mixed))).toBe(normalizeTxHash(mixed));
      }),
    );
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(normalizeTxHash(normalizeTxHash(s))).toBe(normalizeTxHash(s));
      }),
    );
  });
});
