/**
 * TRON addresses: every address the encoder makes is accepted, and a single mistyped character
 * anywhere is refused (the base58check checksum catches it), so a withdrawal cannot be bound
 * to a neighbour of the intended address.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isTronAddress, tronAddress } from "../../../worker/domain/chains/tron";

/** The wallet addresses the API tests bind (tests/api/money/helpers.ts). */
const TRC20 = ["TCvAsN4KpsZMAYTpHeEYgt1YuoBPF4HT9S", "TLLX521joHfWAPNsBxHaqVTBm1Qg8kS5HU"];
const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const accountId = fc.uint8Array({ minLength: 20, maxLength: 20 });

describe("TRON addresses", () => {
  it("accepts known mainnet addresses", () => {
    // The USDT contract, the first account of the public BIP-39 test mnemonic, and the test fixtures.
    for (const known of ["TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH", ...TRC20]) {
      expect(isTronAddress(known)).toBe(true);
    }
  });

  it("encodes the known account id of the USDT contract", () => {
    const id = Uint8Array.from(Buffer.from("a614f803b6fd780986a42c78ec9c7f77e6ded13c", "hex"));
    expect(tronAddress(id)).toBe("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t");
  });

  it("accepts every address made from 0x41 and 20 random bytes", () => {
    fc.assert(
      fc.property(accountId, (id) => {
        const address = tronAddress(id);
        expect(address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
        expect(isTronAddress(address)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("refuses any one-character change at any position", () => {
    fc.assert(
      fc.property(accountId, fc.nat(33), fc.nat(BASE58.length - 2), (id, position, pick) => {
        const address = tronAddress(id);
        // Another base58 character than the one there: skip over it in the alphabet.
        const others = BASE58.replace(address[position], "");
        const typo = address.slice(0, position) + others[pick] + address.slice(position + 1);
        expect(typo).not.toBe(address);
        expect(isTronAddress(typo)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it("refuses other shapes: other prefixes, lengths, alphabets and Ethereum addresses", () => {
    const good = TRC20[0];
    for (const bad of ["", good.slice(1), good + "1", good.slice(0, -1) + "0", "t" + good.slice(1), "0x5b3A1D8e6F2d1a0e3C2bB4A7dE9f0c1B2a3D4e5F", ` ${good}`]) {
      expect(isTronAddress(bad)).toBe(false);
    }
  });
});
