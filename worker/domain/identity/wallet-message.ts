/**
 * The sign-in challenge a wallet signs: an EIP-4361 (Sign-In with Ethereum) message. A device
 * Bitcoin key signs the same text with "Bitcoin" in the first line, its bc1q address and chain
 * id 0 (decision 058). No dependencies: the browser builds its message with this file.
 */
export type WalletKind = "eth" | "btc";

/** How long a challenge (and the nonce in it) may be used after it is issued. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
/** Ethereum mainnet: the signature is chain-independent, the message still names one chain. */
export const ETH_CHAIN_ID = 1;
export const BTC_CHAIN_ID = 0;

const HEADER = { eth: "Ethereum", btc: "Bitcoin" } as const;

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

/** The text to sign; the browser and the tests build it with this one function. */
export function challengeText(f: ChallengeFields): string {
  const lines = [
    `${f.domain} wants you to sign in with your ${HEADER[f.kind]} account:`,
    f.address,
    "",
    ...(f.statement ? [f.statement, ""] : []),
    `URI: ${f.uri}`,
    "Version: 1",
    `Chain ID: ${f.kind === "eth" ? ETH_CHAIN_ID : BTC_CHAIN_ID}`,
    `Nonce: ${f.nonce}`,
    `Issued At: ${new Date(f.issued_at_ms).toISOString()}`,
    `Expiration Time: ${new Date(f.issued_at_ms + CHALLENGE_TTL_MS).toISOString()}`,
  ];
  return lines.join("\n");
}
