import { secp256k1 } from "@noble/curves/secp256k1.js";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { describe, expect, it } from "vitest";
import { addressOfPrivateKey, signBip137 } from "../../../worker/domain/identity/bip137";
import { CHALLENGE_TTL_MS, challengeText, readChallenge, signatureMatches, type ChallengeFields } from "../../../worker/domain/identity/wallet-challenge";

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const expected = { domain: "app.example", origin: "https://app.example", now_ms: NOW };
const eth = privateKeyToAccount(generatePrivateKey());
const btcKey = secp256k1.utils.randomSecretKey();
const btcAddress = addressOfPrivateKey(btcKey);

function text(over: Partial<ChallengeFields> = {}) {
  return challengeText({ kind: "eth", domain: "app.example", address: eth.address, uri: "https://app.example", nonce: "abcdef0123456789", issued_at_ms: NOW, statement: "Sign in.", ...over });
}

describe("the challenge text", () => {
  it("is an EIP-4361 message with a five-minute expiration", () => {
    expect(text()).toBe(
      [
        `app.example wants you to sign in with your Ethereum account:`,
        eth.address,
        "",
        "Sign in.",
        "",
        "URI: https://app.example",
        "Version: 1",
        "Chain ID: 1",
        "Nonce: abcdef0123456789",
        "Issued At: 2026-11-23T12:00:00.000Z",
        `Expiration Time: ${new Date(NOW + CHALLENGE_TTL_MS).toISOString()}`,
      ].join("\n"),
    );
  });

  it("is viem's createSiweMessage, which writes the address EIP-55 checksummed even when the wallet answered it in lower case", () => {
    const fields = { domain: "app.example", uri: "https://app.example", version: "1", chainId: 1, nonce: "abcdef0123456789", statement: "Sign in." } as const;
    const viem = createSiweMessage({ ...fields, address: eth.address, issuedAt: new Date(NOW), expirationTime: new Date(NOW + CHALLENGE_TTL_MS) });
    expect(text({ address: eth.address.toLowerCase() })).toBe(viem);
    expect(text({ address: eth.address.toLowerCase() }).split("\n")[1]).toBe(eth.address);
    expect(eth.address).not.toBe(eth.address.toLowerCase());
  });

  it("names Bitcoin, the bc1q address and chain 0 for a device key", () => {
    const btc = text({ kind: "btc", address: btcAddress });
    expect(btc.split("\n").slice(0, 2)).toEqual(["app.example wants you to sign in with your Bitcoin account:", btcAddress]);
    expect(btc).toContain("\nChain ID: 0\n");
  });
});

describe("readChallenge", () => {
  it("reads both kinds when everything matches", () => {
    const ok = readChallenge("eth", eth.address.toLowerCase(), text(), expected);
    expect(ok).toEqual({ status: "ok", challenge: { kind: "eth", address: eth.address.toLowerCase(), nonce: "abcdef0123456789", issued_at_ms: NOW, expires_at_ms: NOW + CHALLENGE_TTL_MS } });
    expect(readChallenge("btc", btcAddress, text({ kind: "btc", address: btcAddress }), expected).status).toBe("ok");
  });

  it.each([
    ["another domain", { domain: "evil.example" }],
    ["another origin", { uri: "https://evil.example" }],
    ["another scheme of our host", { uri: "http://app.example" }],
    ["an issue time in the future", { issued_at_ms: NOW + 5 * 60_000 }],
  ])("refuses %s", (_name, over) => {
    expect(readChallenge("eth", eth.address, text(over), expected).status).toBe("message_invalid");
  });

  it("refuses a nonce too short for EIP-4361 (viem will not even write one)", () => {
    expect(() => text({ nonce: "abc123" })).toThrow();
    expect(readChallenge("eth", eth.address, text().replace("Nonce: abcdef0123456789", "Nonce: abc123"), expected).status).toBe("message_invalid");
  });

  it("refuses an Ethereum address without its EIP-55 checksum, all lower case or wrongly cased", () => {
    const lower = text().replace(eth.address, eth.address.toLowerCase());
    expect(lower).not.toBe(text());
    expect(readChallenge("eth", eth.address, lower, expected).status).toBe("address_not_checksummed");
    expect(readChallenge("eth", eth.address.toLowerCase(), lower, expected).status).toBe("address_not_checksummed");
    const flipped = `0x${[...eth.address.slice(2)].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("")}`;
    expect(readChallenge("eth", eth.address, text().replace(eth.address, flipped), expected).status).toBe("address_not_checksummed");
    // The checksum is about the message: the posted account may be in any case (accounts are stored lower-cased).
    expect(readChallenge("eth", eth.address.toLowerCase(), text(), expected).status).toBe("ok");
  });

  it("takes EIP-4361's optional scheme only when it is ours", () => {
    expect(readChallenge("eth", eth.address, `https://${text()}`, expected).status).toBe("ok");
    expect(readChallenge("eth", eth.address, `http://${text()}`, expected).status).toBe("message_invalid");
  });

  it("says expired once the expiration time has passed", () => {
    expect(readChallenge("eth", eth.address, text(), { ...expected, now_ms: NOW + CHALLENGE_TTL_MS }).status).toBe("expired");
    expect(readChallenge("eth", eth.address, text(), { ...expected, now_ms: NOW + CHALLENGE_TTL_MS - 1 }).status).toBe("ok");
  });

  it("refuses a lifetime longer than five minutes, a missing expiration, another chain and another version", () => {
    const long = text().replace(/Expiration Time: .*/, `Expiration Time: ${new Date(NOW + CHALLENGE_TTL_MS + 1).toISOString()}`);
    expect(readChallenge("eth", eth.address, long, expected).status).toBe("message_invalid");
    expect(readChallenge("eth", eth.address, text().replace(/\nExpiration Time: .*/, ""), expected).status).toBe("message_invalid");
    expect(readChallenge("eth", eth.address, text().replace("Chain ID: 1", "Chain ID: 137"), expected).status).toBe("message_invalid");
    expect(readChallenge("eth", eth.address, text().replace("Version: 1", "Version: 2"), expected).status).toBe("message_invalid");
  });

  it("refuses a message for another account, or of the other kind", () => {
    const other = privateKeyToAccount(generatePrivateKey()).address;
    expect(readChallenge("eth", other, text(), expected).status).toBe("message_invalid");
    expect(readChallenge("btc", btcAddress, text(), expected).status).toBe("message_invalid");
    expect(readChallenge("eth", eth.address, text({ kind: "btc", address: btcAddress }), expected).status).toBe("message_invalid");
    const otherBtc = addressOfPrivateKey(secp256k1.utils.randomSecretKey());
    expect(readChallenge("btc", otherBtc, text({ kind: "btc", address: btcAddress }), expected).status).toBe("message_invalid");
  });

  it("refuses text that is no challenge at all", () => {
    for (const junk of ["", "hello", "\n\n\n", "URI: https://app.example\nNonce: abcdef0123456789"]) {
      expect(readChallenge("eth", eth.address, junk, expected).status).toBe("message_invalid");
      expect(readChallenge("btc", btcAddress, junk, expected).status).toBe("message_invalid");
    }
  });
});

describe("signatureMatches", () => {
  it("checks an Ethereum personal_sign signature against the address", async () => {
    const message = text();
    const signature = await eth.signMessage({ message });
    expect(await signatureMatches("eth", eth.address, message, signature)).toBe(true);
    expect(await signatureMatches("eth", eth.address.toLowerCase(), message, signature)).toBe(true);
    expect(await signatureMatches("eth", eth.address, `${message} `, signature)).toBe(false);
    const stranger = privateKeyToAccount(generatePrivateKey());
    expect(await signatureMatches("eth", eth.address, message, await stranger.signMessage({ message }))).toBe(false);
    expect(await signatureMatches("eth", eth.address, message, "0x1234")).toBe(false);
    expect(await signatureMatches("eth", eth.address, message, `0x${"ff".repeat(65)}`)).toBe(false);
  });

  it("checks a BIP-137 signature against the bc1q address", async () => {
    const message = text({ kind: "btc", address: btcAddress });
    expect(await signatureMatches("btc", btcAddress, message, signBip137(message, btcKey))).toBe(true);
    expect(await signatureMatches("btc", btcAddress, message, signBip137(message, secp256k1.utils.randomSecretKey()))).toBe(false);
  });
});
