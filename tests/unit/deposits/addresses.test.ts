/**
 * Per-user deposit addresses against published vectors of the BIP-39 test mnemonic
 * "abandon … about" (TEST-ONLY: its keys are public). Its first Ethereum account (m/44'/60'/0'/0/0)
 * and first TRON account (m/44'/195'/0'/0/0) are known to every wallet, so deriving child 0 of
 * the account-level xpubs must give exactly those.
 */
import { pbkdf2 } from "@noble/hashes/pbkdf2.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { HDKey } from "@scure/bip32";
import { describe, expect, it } from "vitest";
import { addressOfPublicKey, addressRule, deriveAddress, parseXpub } from "../../../worker/domain/deposits/addresses";
import { eip55 } from "../../../worker/domain/chains/ethereum";
import { DEMO_XPUBS } from "../../../scripts/seed-demo";

const MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
/** BIP-39 seed: PBKDF2-HMAC-SHA512(mnemonic, "mnemonic", 2048 rounds, 64 bytes). */
const root = HDKey.fromMasterSeed(pbkdf2(sha512, new TextEncoder().encode(MNEMONIC), new TextEncoder().encode("mnemonic"), { c: 2048, dkLen: 64 }));
const ETH_XPUB = root.derive("m/44'/60'/0'/0").publicExtendedKey;
const TRON_XPUB = root.derive("m/44'/195'/0'/0").publicExtendedKey;

describe("deposit addresses", () => {
  it("the demo seed's xpubs are the test mnemonic's account keys", () => {
    expect(DEMO_XPUBS.ERC20).toBe(ETH_XPUB);
    expect(DEMO_XPUBS.TRC20).toBe(TRON_XPUB);
  });

  it("child 0 gives the known first accounts of the test mnemonic", () => {
    expect(deriveAddress("ERC20", ETH_XPUB, 0)).toEqual({ status: "ok", address: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94" });
    expect(deriveAddress("TRC20", TRON_XPUB, 0)).toEqual({ status: "ok", address: "TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH" });
  });

  it("child N of the xpub equals the wallet's own account N (private derivation)", () => {
    for (const n of [1, 2, 7, 1000, 2 ** 31 - 1]) {
      const eth = root.derive(`m/44'/60'/0'/0/${n}`).publicKey!;
      const tron = root.derive(`m/44'/195'/0'/0/${n}`).publicKey!;
      expect(deriveAddress("ERC20", ETH_XPUB, n)).toEqual({ status: "ok", address: addressOfPublicKey("ethereum", eth) });
      expect(deriveAddress("TRC20", TRON_XPUB, n)).toEqual({ status: "ok", address: addressOfPublicKey("tron", tron) });
    }
    // Different users, different addresses.
    const a = deriveAddress("TRC20", TRON_XPUB, 1);
    const b = deriveAddress("TRC20", TRON_XPUB, 2);
    expect(a).not.toEqual(b);
  });

  it("Ethereum addresses carry the EIP-55 checksum", () => {
    // Vectors from EIP-55 itself.
    expect(eip55("5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")).toBe("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed");
    expect(eip55("fb6916095ca1df60bb79ce92ce3ea74c37c5d359")).toBe("0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359");
  });

  it("refuses private keys, garbage, unsupported chains and hardened indices", () => {
    expect(parseXpub(root.derive("m/44'/60'/0'/0").privateExtendedKey).status).toBe("private_key");
    expect(parseXpub("xpub-not-a-key").status).toBe("invalid");
    expect(parseXpub(ETH_XPUB.slice(0, -1) + (ETH_XPUB.endsWith("r") ? "s" : "r")).status).toBe("invalid");
    expect(parseXpub(`  ${ETH_XPUB}  `).status).toBe("ok");
    expect(deriveAddress("BEP20", ETH_XPUB, 1).status).toBe("unsupported_chain");
    expect(deriveAddress("ERC20", "nope", 1).status).toBe("invalid_xpub");
    expect(deriveAddress("ERC20", ETH_XPUB, 2 ** 31).status).toBe("index_out_of_range");
    expect(deriveAddress("ERC20", ETH_XPUB, -1).status).toBe("index_out_of_range");
    expect(addressRule("trc20")).toBe("tron");
    expect(addressRule("ERC20")).toBe("ethereum");
  });
});
