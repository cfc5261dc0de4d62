import { browserSupportsWebAuthn, startAuthentication, startRegistration } from "@simplewebauthn/browser";

/**
 * The browser's half of passkeys, through @simplewebauthn/browser. A refusal by the user or
 * the authenticator (NotAllowedError: cancelled, timed out, no matching passkey) is told
 * apart from everything else so the page can say which it was.
 */
export type PasskeyOutcome<T> = { status: "ok"; response: T } | { status: "unsupported" | "cancelled" | "failed" };

export function passkeysSupported(): boolean {
  return typeof window !== "undefined" && browserSupportsWebAuthn();
}

export async function createPasskey(optionsJSON: Parameters<typeof startRegistration>[0]["optionsJSON"]) {
  return run(() => startRegistration({ optionsJSON }));
}

export async function assertPasskey(optionsJSON: Parameters<typeof startAuthentication>[0]["optionsJSON"]) {
  return run(() => startAuthentication({ optionsJSON }));
}

async function run<T>(ceremony: () => Promise<T>): Promise<PasskeyOutcome<T>> {
  if (!passkeysSupported()) return { status: "unsupported" };
  try {
    return { status: "ok", response: await ceremony() };
  } catch (err) {
    const name = err instanceof Error ? err.name : "";
    return { status: name === "NotAllowedError" || name === "AbortError" ? "cancelled" : "failed" };
  }
}
