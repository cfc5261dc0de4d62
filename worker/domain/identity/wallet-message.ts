import { createSiweMessage } from "viem/siwe";

/**
 * The sign-in challenge a wallet signs: an EIP-4361 (Sign-In with Ethereum) message, built by
 * viem's `createSiweMessage`, which writes the address EIP-55 checksummed (decision 110). A
 * device Bitcoin key signs the same text with "Bitcoin" in the first line, its bc1q address and
 * chain id 0 (decision 058). The browser builds its message with this file.
 */
export type WalletKind = "eth" | "btc";

/** How long a challenge (and the nonce in it) may be used after it is issued. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
/** Ethereum mainnet: the signature is chain-independent, the message still names one chain. */
export const ETH_CHAIN_ID = 1;
export const BTC_CHAIN_ID = 0;

/**
 * viem reads and writes only the Ethereum header: a Bitcoin challenge is an Ethereum one for
 * this placeholder address with its first two lines swapped (wallet-challenge.ts swaps back).
 */
export const PLACEHOLDER_ADDRESS = "0x0000000000000000000000000000000000000000";

/** Where the sign-in happens, as the server sees its own request. */
export type Expected = { domain: string; origin: string; now_ms: number };

export type ChallengeFields = {
  kind: WalletKind;
  domain: string;
  address: string;
  uri: string;
  nonce: string;
  issued_at_ms: number;
  statement?: string;
};

/**
 * The text to sign; the browser and the tests build it with this one function. viem throws on
 * a field EIP-4361 does not allow (a nonce under 8 alphanumerics, a statement with a line break).
 */
export function challengeText(f: ChallengeFields): string {
  const message = createSiweMessage({
    domain: f.domain,
    address: (f.kind === "eth" ? f.address : PLACEHOLDER_ADDRESS) as `0x${string}`,
    ...(f.statement ? { statement: f.statement } : {}),
    uri: f.uri,
    version: "1",
    chainId: f.kind === "eth" ? ETH_CHAIN_ID : BTC_CHAIN_ID,
    nonce: f.nonce,
    issuedAt: new Date(f.issued_at_ms),
    expirationTime: new Date(f.issued_at_ms + CHALLENGE_TTL_MS),
  });
  if (f.kind === "eth") return message;
  return bitcoinHeader(f.domain, f.address) + message.slice(ethereumHeader(f.domain, PLACEHOLDER_ADDRESS).length);
}

export function ethereumHeader(domain: string, address: string): string {
  return `${domain} wants you to sign in with your Ethereum account:\n${address}\n`;
}

function bitcoinHeader(domain: string, address: string): string {
  return `${domain} wants you to sign in with your Bitcoin account:\n${address}\n`;
}
