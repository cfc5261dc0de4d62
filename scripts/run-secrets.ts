/**
 * The secrets a whole `npm test` run uses, in one list, and the scan of what the run printed
 * (decision 129): no password, authenticator key, card key or card number the tests hand to the
 * app may show up in its output, whether the Worker logged it, a script echoed it or a failing
 * assertion printed a request body. A hit fails the run and names the file, the line and the
 * kind of secret; the secret itself is never printed.
 *
 * The demo's values are imported from where they are defined; the tests' fixed values are
 * listed with the file that uses them (tests/unit/scripts/run-secrets.test.ts checks that each
 * still appears there, so the list cannot quietly go stale).
 */
import { DEMO_OPERATORS } from "./demo-operators";
import { DEV_CARD_KEY } from "../worker/domain/crypto/sealing";

export type RunSecret = { kind: string; value: string; source: string };

/** The demo user's password: scripts/seed-demo.ts (kept here as a literal: that module needs the Worker's database code). */
export const DEMO_USER_PASSWORD = "demo12345";

export const RUN_SECRETS: readonly RunSecret[] = [
  { kind: "demo user's password", value: DEMO_USER_PASSWORD, source: "scripts/seed-demo.ts" },
  { kind: "demo operator's password", value: DEMO_OPERATORS.operator.password, source: "scripts/demo-operators.ts" },
  { kind: "demo operator's authenticator key", value: DEMO_OPERATORS.operator.totp_key, source: "scripts/demo-operators.ts" },
  { kind: "demo auditor's password", value: DEMO_OPERATORS.auditor.password, source: "scripts/demo-operators.ts" },
  { kind: "demo auditor's authenticator key", value: DEMO_OPERATORS.auditor.totp_key, source: "scripts/demo-operators.ts" },
  { kind: "development CARD_KEY", value: DEV_CARD_KEY, source: "worker/domain/crypto/sealing.ts" },
  { kind: "development CARD_KEY (its text)", value: atob(DEV_CARD_KEY), source: "worker/domain/crypto/sealing.ts" },
  { kind: "test card number", value: "6222021234567894", source: "tests/api/money/helpers.ts" },
  { kind: "test card number", value: "4111111111111111", source: "tests/unit/binding/card-crypto.test.ts" },
  { kind: "API tests' user password", value: "secret123", source: "tests/api/helpers.ts" },
  { kind: "API tests' changed password", value: "newpass456", source: "tests/api/identity.test.ts" },
  { kind: "journeys' user password", value: "journey123", source: "tests/e2e/helpers.ts" },
  { kind: "crash harness's user password", value: "crash12345", source: "scripts/crash.ts" },
  { kind: "operator sign-in tests' operator password", value: "Operator-2fa-12345", source: "tests/api/operator-auth.test.ts" },
  { kind: "step-up tests' operator password", value: "Step-up-operator-1", source: "tests/api/step-up.test.ts" },
];

/** A secret found: where, and which kind (never the value). */
export type SecretHit = { file: string; line: number; kind: string };

/** Colour and cursor codes: a secret printed in colour is still printed. */
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** Every line of `text` holding one of `secrets` (one hit per line and kind). */
export function scanText(text: string, file: string, secrets: readonly RunSecret[] = RUN_SECRETS): SecretHit[] {
  const plain = text.replace(ANSI, "");
  const hits: SecretHit[] = [];
  for (const s of secrets) {
    if (!s.value) continue;
    for (let at = plain.indexOf(s.value); at >= 0; at = plain.indexOf(s.value, at + s.value.length)) {
      const line = countLines(plain, at);
      if (!hits.some((h) => h.line === line && h.kind === s.kind)) hits.push({ file, line, kind: s.kind });
    }
  }
  return hits.sort((a, b) => a.line - b.line);
}

function countLines(text: string, until: number): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < until; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** What the run prints for its hits: file, line and kind, never the secret. */
export function describeHits(hits: readonly SecretHit[]): string {
  return hits.map((h) => `${h.file}:${h.line}: a ${h.kind}`).join("\n");
}
