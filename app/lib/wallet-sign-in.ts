import i18next from "i18next";
import { isTimeoutError, timedFetch } from "./request-timeout";
import { challengeText, type WalletKind } from "../../worker/domain/identity/wallet-message";

/**
 * The browser's half of wallet sign-in: a nonce from the server, the challenge for this very
 * page's host and origin (what the server checks), and the fields the page's action posts on.
 */
export type SignedChallenge = { account: string; message: string; signature: string; type: WalletKind };

/** Thrown with the server's own message when it refuses to issue a nonce (e.g. too many attempts). */
export class ServerRefusal extends Error {}

export async function fetchNonce(lang: string): Promise<string> {
  const res = await timedFetch(`/api/user/nonce?lang=${encodeURIComponent(lang)}`, { headers: { accept: "application/json" } }).catch((err) => {
    // Out of time: the page's own words (the browser's i18next), shown like a refusal.
    throw isTimeoutError(err) ? new ServerRefusal(i18next.t("request_timeout", { ns: "errors" })) : err;
  });
  const body = (await res.json()) as { code: number; msg: string; data?: { nonce?: string } };
  if (body.code !== 1 || typeof body.data?.nonce !== "string") throw new ServerRefusal(body.msg);
  return body.data.nonce;
}

export function challengeFor(kind: WalletKind, address: string, nonce: string, statement: string): string {
  return challengeText({ kind, domain: window.location.host, address, uri: window.location.origin, nonce, issued_at_ms: Date.now(), statement });
}

/** The error's own words for a toast: wallets reject with objects that carry a `message`. */
export function errorText(err: unknown): string {
  if (err && typeof err === "object" && "message" in err && typeof err.message === "string" && err.message) return err.message;
  return String(err);
}
