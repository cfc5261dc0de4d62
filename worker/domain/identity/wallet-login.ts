import { and, eq, gt, isNull, lt } from "drizzle-orm";
import { hex } from "@scure/base";
import type { Db } from "../../db/client";
import { users, wallet_nonces } from "../../db/schema";
import type { LocaleKey } from "../../../locales/languages";
import { isP2wpkhAddress } from "./bip137";
import { clearSignInAttempts, createUserWithSession, openSession, refuseSignIn, takeSignInAttempt, type User } from "./users";
import { spendSecondFactor } from "./two-factor";
import type { CardKeys } from "../crypto/sealing";
import { UNKNOWN_CLIENT, type Client, type SignInClient } from "./client";
import { CHALLENGE_TTL_MS, readChallenge, signatureMatches, walletAccount, type Expected, type WalletKind } from "./wallet-challenge";

/**
 * Wallet sign-in (decision 057): a single-use server nonce, an EIP-4361 challenge signed by the
 * wallet, then the same throttle and session code as password sign-in (users.ts). A wallet's
 * account is its address; it is created at its first sign-in without a password.
 */

/** 128 random bits as hex: EIP-4361 wants at least 8 alphanumerics. */
export async function issueNonce(db: Db, now_ms: number): Promise<{ nonce: string; expires_at_ms: number }> {
  const nonce = hex.encode(crypto.getRandomValues(new Uint8Array(16)));
  const expires_at_ms = now_ms + CHALLENGE_TTL_MS;
  await db.batch([
    // Expired nonces can never be used again; issuing clears them so the table stays small.
    db.delete(wallet_nonces).where(lt(wallet_nonces.expires_at_ms, now_ms)),
    db.insert(wallet_nonces).values({ nonce, created_at_ms: now_ms, expires_at_ms }),
  ]);
  return { nonce, expires_at_ms };
}

/** `code`: the second factor of an account with two-factor on (decision 068), sent with the same signed challenge. */
export type WalletLoginInput = { kind: WalletKind; account: string; message: string; signature: string; lang: LocaleKey | null; code?: string; keys?: CardKeys | null; client?: Client };

export type WalletLoginResult =
  | { status: "ok"; user: User; token: string; created: boolean }
  | { status: "throttled"; retry_after_ms: number }
  | { status: "need_2fa" }
  | { status: "message_invalid" | "address_not_checksummed" | "challenge_expired" | "signature_invalid" | "code_wrong" };

type Refusal = { status: "message_invalid" | "address_not_checksummed" | "challenge_expired" | "signature_invalid" };

export async function walletLogin(db: Db, input: WalletLoginInput, expected: Expected): Promise<WalletLoginResult> {
  const account = walletAccount(input.account);
  // A text that is no address is not an account: it gets no throttle row of its own.
  if (!isWalletAddress(input.kind, account)) return { status: "message_invalid" };
  const attempt = await takeSignInAttempt(db, account, expected.now_ms);
  if (attempt.status === "throttled") return attempt;

  const client: SignInClient = { ...(input.client ?? UNKNOWN_CLIENT), method: "wallet" };
  const proof = await checkProof(db, { ...input, account }, expected);
  if (proof.status !== "ok") {
    await refuseSignIn(db, account, expected.now_ms, client);
    return proof;
  }
  // With two-factor on, the nonce stays unspent until the code is right: the page sends the
  // same signed challenge again with the code, and the attempt stays counted meanwhile.
  const second = await secondFactorOf(db, input.keys ?? null, account, input.code ?? "", expected.now_ms);
  if (second === "missing") return { status: "need_2fa" };
  if (second === "wrong") {
    await refuseSignIn(db, account, expected.now_ms, client);
    return { status: "code_wrong" };
  }
  if (!(await spendNonce(db, proof.nonce, expected.now_ms))) return { status: "challenge_expired" };
  return signInWallet(db, account, input.lang, expected.now_ms, client);
}

/** Everything a signature must be, over a live nonce (not spent here). */
async function checkProof(db: Db, input: WalletLoginInput, expected: Expected): Promise<Refusal | { status: "ok"; nonce: string }> {
  const read = readChallenge(input.kind, input.account, input.message, expected);
  if (read.status === "expired") return { status: "challenge_expired" };
  if (read.status !== "ok") return { status: read.status };
  const nonce = read.challenge.nonce;
  // The expected nonce is one we issued, unused and unexpired; only then is a signature worth checking.
  if (!(await liveNonce(db, nonce, expected.now_ms))) return { status: "challenge_expired" };
  if (!(await signatureMatches(input.kind, input.account, input.message, input.signature))) return { status: "signature_invalid" };
  return { status: "ok", nonce };
}

/** One conditional write spends the nonce: of concurrent replays exactly one gets the row back. */
async function spendNonce(db: Db, nonce: string, now_ms: number): Promise<boolean> {
  const spent = await db
    .update(wallet_nonces)
    .set({ used_at_ms: now_ms })
    .where(and(eq(wallet_nonces.nonce, nonce), isNull(wallet_nonces.used_at_ms), gt(wallet_nonces.expires_at_ms, now_ms)))
    .returning({ nonce: wallet_nonces.nonce });
  return spent.length === 1;
}

/** A wallet seen for the first time has no account yet, so no second factor. */
async function secondFactorOf(db: Db, keys: CardKeys | null, account: string, code: string, now_ms: number) {
  const user = await db.query.users.findFirst({ where: eq(users.account, account), columns: { id: true } });
  return user ? spendSecondFactor(db, keys, user.id, code, now_ms) : "off";
}

function liveNonce(db: Db, nonce: string, now_ms: number) {
  return db.query.wallet_nonces.findFirst({
    where: and(eq(wallet_nonces.nonce, nonce), isNull(wallet_nonces.used_at_ms), gt(wallet_nonces.expires_at_ms, now_ms)),
    columns: { nonce: true },
  });
}

/** The wallet's user, created without a password on its first sign-in. */
async function signInWallet(db: Db, account: string, lang: LocaleKey | null, now_ms: number, client: SignInClient): Promise<WalletLoginResult> {
  const existing = await db.query.users.findFirst({ where: eq(users.account, account) });
  if (existing) return { ...(await openSession(db, existing, now_ms, [], client)), created: false };
  const fields = { account, password_hash: "", inviter_id: null, invited_with_code: "", lang };
  const created = await createUserWithSession(db, fields, now_ms, [clearSignInAttempts(db, account)], client);
  if (created.status === "ok") return { ...created, created: true };
  // Another first sign-in of the same wallet (another nonce) created it a moment ago.
  const raced = await db.query.users.findFirst({ where: eq(users.account, account) });
  if (!raced) throw new Error("wallet account vanished after a unique-account conflict");
  return { ...(await openSession(db, raced, now_ms, [], client)), created: false };
}

export function isWalletAddress(kind: WalletKind, account: string): boolean {
  return kind === "eth" ? /^0x[0-9a-f]{40}$/.test(account) : isP2wpkhAddress(account);
}
