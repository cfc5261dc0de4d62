import { verifyMessage } from "viem";
import { parseSiweMessage, validateSiweMessage } from "viem/siwe";
import { isP2wpkhAddress, verifyBip137 } from "./bip137";
import { isChecksummedAddress } from "../chains/ethereum";
import { BTC_CHAIN_ID, CHALLENGE_TTL_MS, ETH_CHAIN_ID, ethereumHeader, PLACEHOLDER_ADDRESS, type Expected, type WalletKind } from "./wallet-message";

export { BTC_CHAIN_ID, CHALLENGE_TTL_MS, challengeText, ETH_CHAIN_ID, type ChallengeFields, type Expected, type WalletKind } from "./wallet-message";

/*
 * Checks a signed sign-in challenge (its text: wallet-message.ts). Pure rules: the nonce's
 * single use is wallet-login.ts's job.
 */

/** A phone clock slightly ahead of ours still signs in. */
const CLOCK_SKEW_MS = 60_000;

export type Challenge = { kind: WalletKind; address: string; nonce: string; issued_at_ms: number; expires_at_ms: number };

export type ChallengeCheck = { status: "ok"; challenge: Challenge } | { status: "message_invalid" | "address_not_checksummed" | "expired" };

/**
 * Reads the challenge and checks everything but the signature and the nonce's freshness:
 * the text's form, that the address is `account` and EIP-55 checksummed, our domain and origin,
 * the chain, version and times. viem parses and validates the Ethereum form with our domain
 * passed explicitly; it takes any address case, so the checksum is ours to check (decision 110).
 */
export function readChallenge(kind: WalletKind, account: string, message: string, expected: Expected): ChallengeCheck {
  const parsed = parseSiweMessage(kind === "eth" ? message : asEthereumHeader(message, account));
  const { nonce, issuedAt, expirationTime } = parsed;
  if (!nonce || !issuedAt || !expirationTime || !ownAddress(kind, account, parsed.address) || !ourSite(parsed, expected)) return { status: "message_invalid" };
  if (kind === "eth" && !isChecksummedAddress(parsed.address ?? "")) return { status: "address_not_checksummed" };
  if (parsed.chainId !== (kind === "eth" ? ETH_CHAIN_ID : BTC_CHAIN_ID)) return { status: "message_invalid" };
  const issued_at_ms = issuedAt.getTime();
  const expires_at_ms = expirationTime.getTime();
  // A challenge lives as long as its nonce, and is not dated ahead of our clock.
  if (!(expires_at_ms - issued_at_ms <= CHALLENGE_TTL_MS && issued_at_ms <= expected.now_ms + CLOCK_SKEW_MS)) return { status: "message_invalid" };
  const time = new Date(expected.now_ms);
  const valid = validateSiweMessage({ message: parsed, domain: expected.domain, nonce, ...(kind === "eth" ? { address: account as `0x${string}` } : {}), time });
  if (!valid) return { status: expires_at_ms <= expected.now_ms ? "expired" : "message_invalid" };
  return { status: "ok", challenge: { kind, address: account, nonce, issued_at_ms, expires_at_ms } };
}

/** Our host as the domain, our origin as the URI; an optional scheme must be ours too. */
function ourSite(parsed: { domain?: string; uri?: string; scheme?: string }, expected: Expected): boolean {
  if (parsed.domain !== expected.domain || !parsed.uri || !sameOrigin(parsed.uri, expected.origin)) return false;
  return parsed.scheme === undefined || `${parsed.scheme}:` === new URL(expected.origin).protocol;
}

/**
 * viem reads only the Ethereum header; a Bitcoin challenge is read by checking its own two
 * header lines here and handing viem the same text with a placeholder Ethereum address, so
 * both kinds share one parser and one set of field rules.
 */
function asEthereumHeader(message: string, account: string): string {
  const m = /^([^\n]*) wants you to sign in with your Bitcoin account:\n([^\n]*)\n/.exec(message);
  if (!m || m[2] !== account) return "";
  return ethereumHeader(m[1], PLACEHOLDER_ADDRESS) + message.slice(m[0].length);
}

function ownAddress(kind: WalletKind, account: string, parsed: string | undefined): boolean {
  if (kind === "btc") return parsed === PLACEHOLDER_ADDRESS && isP2wpkhAddress(account);
  return !!parsed && /^0x[0-9a-fA-F]{40}$/.test(account) && parsed.toLowerCase() === account.toLowerCase();
}

function sameOrigin(uri: string, origin: string): boolean {
  try {
    return new URL(uri).origin === origin;
  } catch {
    return false;
  }
}

/** The signature over the exact text: EIP-191 personal_sign for Ethereum, BIP-137 for Bitcoin. */
export async function signatureMatches(kind: WalletKind, account: string, message: string, signature: string): Promise<boolean> {
  if (kind === "btc") return verifyBip137(message, signature, account);
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return false;
  try {
    return await verifyMessage({ address: account as `0x${string}`, message, signature: signature as `0x${string}` });
  } catch {
    return false;
  }
}

/**
 * Accounts are stored lower-cased (users.account): an EIP-55 checksummed address and its
 * lower-case form are one account, and bech32 is case-insensitive with lower case canonical.
 */
export function walletAccount(address: string): string {
  return address.trim().toLowerCase();
}
