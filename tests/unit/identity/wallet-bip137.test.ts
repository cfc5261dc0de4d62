import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64, createBase58check, hex } from "@scure/base";
import { describe, expect, it } from "vitest";
import { addressOfPrivateKey, bitcoinMessageHash, isP2wpkhAddress, p2wpkhAddress, signBip137, verifyBip137 } from "../../../worker/domain/identity/bip137";

/** bitcoinjs-message's published example: its key, message and signatures (P2PKH and P2WPKH headers). */
const VECTOR = {
  wif: "L4rK1yDtCWekvXuE6oXD9jCYfFNV2cWRpVuPLBcCU2z8TrisoyY1",
  message: "This is an example of a signed message.",
  p2pkh: "H9L5yLFjti0QTHhPyFrZCT1V/MMnBtXKmoiKDZ78NDBjERki6ZTQZdSMCtkgoNmp17By9ItJr8o7ChX0XxY91nk=",
  p2wpkh: "J9L5yLFjti0QTHhPyFrZCT1V/MMnBtXKmoiKDZ78NDBjERki6ZTQZdSMCtkgoNmp17By9ItJr8o7ChX0XxY91nk=",
};
const vectorKey = createBase58check(sha256).decode(VECTOR.wif).slice(1, 33);
const vectorAddress = addressOfPrivateKey(vectorKey);

describe("BIP-137 message hash", () => {
  it("is double SHA-256 of the prefix, the length and the text (computed independently with Python's hashlib)", () => {
    expect(hex.encode(bitcoinMessageHash("Hello World"))).toBe("a7af0baad5ae99b97fc69b3a0d1abcf3ef17f131cc4776e1bc11933ec8550f49");
    // 300 bytes: the length takes the 0xfd form of Bitcoin's varint.
    expect(hex.encode(bitcoinMessageHash("x".repeat(300)))).toBe("cfaa374801123c07586b32d81c6a355bb6c2b2fe3c0564c8a91c0edbc6bafdc3");
  });
});

describe("P2WPKH addresses", () => {
  it("derives BIP-173's example address from the generator's key", () => {
    expect(p2wpkhAddress(secp256k1.Point.BASE.toBytes(true))).toBe("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4");
  });

  it("accepts only mainnet witness-v0 key hashes with a good checksum", () => {
    expect(isP2wpkhAddress("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4")).toBe(true);
    expect(isP2wpkhAddress("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5")).toBe(false); // checksum
    expect(isP2wpkhAddress("tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx")).toBe(false); // testnet
    expect(isP2wpkhAddress("bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3")).toBe(false); // script hash
    expect(isP2wpkhAddress("1F3sAm6ZtwLAUnj7d38pGFxtP3RVEvtsbV")).toBe(false);
    expect(isP2wpkhAddress("")).toBe(false);
  });
});

describe("signing and verifying", () => {
  it("signs exactly as bitcoinjs-message does (RFC 6979), with the P2WPKH header", () => {
    expect(signBip137(VECTOR.message, vectorKey)).toBe(VECTOR.p2wpkh);
  });

  it("verifies the published signatures for the key's bc1q address", () => {
    expect(verifyBip137(VECTOR.message, VECTOR.p2wpkh, vectorAddress)).toBe(true);
    // Some wallets sign SegWit addresses with the compressed P2PKH header.
    expect(verifyBip137(VECTOR.message, VECTOR.p2pkh, vectorAddress)).toBe(true);
  });

  it("refuses another message, another address, other headers and malformed signatures", () => {
    const other = addressOfPrivateKey(secp256k1.utils.randomSecretKey());
    expect(verifyBip137(`${VECTOR.message} `, VECTOR.p2wpkh, vectorAddress)).toBe(false);
    expect(verifyBip137(VECTOR.message, VECTOR.p2wpkh, other)).toBe(false);
    const bytes = base64.decode(VECTOR.p2wpkh);
    for (const header of [27, 30, 35, 38, 43, 0, 255]) {
      const changed = bytes.slice();
      changed[0] = header;
      expect(verifyBip137(VECTOR.message, base64.encode(changed), vectorAddress), `header ${header}`).toBe(false);
    }
    expect(verifyBip137(VECTOR.message, base64.encode(bytes.slice(0, 64)), vectorAddress)).toBe(false);
    expect(verifyBip137(VECTOR.message, "not base64!", vectorAddress)).toBe(false);
    expect(verifyBip137(VECTOR.message, "", vectorAddress)).toBe(false);
  });

  it("round-trips for fresh keys", () => {
    for (let i = 0; i < 5; i++) {
      const key = secp256k1.utils.randomSecretKey();
      const message = `sign in ${i} ✓`;
      expect(verifyBip137(message, signBip137(message, key), addressOfPrivateKey(key))).toBe(true);
    }
  });
});
