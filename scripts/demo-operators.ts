/**
 * The demo's console operators (scripts/seed-demo.ts creates them), in a file of their own so
 * journeys, benches, the crash harness and integration tests can sign in as them without the
 * Worker's code. Their passwords and authenticator keys are public on purpose (README, "Demo
 * logins"): a code is
 *   node -e 'import("otpauth").then(({TOTP})=>console.log(new TOTP({secret:"OPERATORDEMOKEYPROOFLINETESTONLY"}).generate()))'
 */
import { Secret, TOTP } from "otpauth";

export const DEMO_OPERATORS = {
  operator: { account: "operator", password: "operator12345", totp_key: "OPERATORDEMOKEYPROOFLINETESTONLY" },
  /** A second operator, so the demo can show four eyes (large deposits, adjustments). */
  auditor: { account: "auditor", password: "auditor12345", totp_key: "AUDITORDEMOKEYPROOFLINETESTONLY2" },
} as const;

export type DemoOperator = keyof typeof DEMO_OPERATORS;

const STEP_MS = 30_000;

/** The current 30-second step of authenticator codes. */
export const currentStep = () => Math.floor(Date.now() / STEP_MS);

/**
 * What an authenticator app shows for `key` at `step`, once the server accepts it: a step may
 * be one ahead of the server's (decision 068), so a later one waits.
 */
export async function codeForStep(key: string, step: number): Promise<string> {
  const wait_ms = (step - 1) * STEP_MS - Date.now();
  if (wait_ms > 0) await new Promise((r) => setTimeout(r, wait_ms + 200));
  return new TOTP({ secret: Secret.fromBase32(key), algorithm: "SHA1", digits: 6, period: 30 }).generate({ timestamp: step * STEP_MS });
}

const usedHere = new Map<DemoOperator, number>();

/**
 * A demo operator's code for a step this process has not used yet: each code works once
 * (decision 068). The current step or a later one (the server accepts the next step too). The
 * step is taken before any wait, so callers at the same moment (the crash harness's clients)
 * each get a step of their own, never the same code twice.
 */
export async function demoOperatorCode(account: DemoOperator = "operator"): Promise<string> {
  const step = Math.max(currentStep(), (usedHere.get(account) ?? 0) + 1);
  usedHere.set(account, step);
  return codeForStep(DEMO_OPERATORS[account].totp_key, step);
}

/** The sign-in body of a demo operator, with a fresh code. */
export async function demoOperatorLogin(account: DemoOperator = "operator") {
  const { password } = DEMO_OPERATORS[account];
  return { account, password, code: await demoOperatorCode(account) };
}
