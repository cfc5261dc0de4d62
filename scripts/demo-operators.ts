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

/**
 * What an authenticator app shows for `key`, for a step after `last_step`: each code works once
 * (decision 068). The current step or the next (the server accepts both for at least 30 s);
 * when both are used, it waits for the next step.
 */
export async function nextCode(key: string, last_step: number): Promise<{ code: string; step: number }> {
  const now = Math.floor(Date.now() / STEP_MS);
  const step = Math.max(now, last_step + 1);
  if (step > now + 1) await new Promise((r) => setTimeout(r, (step - 1) * STEP_MS - Date.now() + 200));
  const code = new TOTP({ secret: Secret.fromBase32(key), algorithm: "SHA1", digits: 6, period: 30 }).generate({ timestamp: step * STEP_MS });
  return { code, step };
}

const usedHere = new Map<DemoOperator, number>();

/** A demo operator's code for a step this process has not used yet. */
export async function demoOperatorCode(account: DemoOperator = "operator"): Promise<string> {
  const { code, step } = await nextCode(DEMO_OPERATORS[account].totp_key, usedHere.get(account) ?? 0);
  usedHere.set(account, step);
  return code;
}

/** The sign-in body of a demo operator, with a fresh code. */
export async function demoOperatorLogin(account: DemoOperator = "operator") {
  const { password } = DEMO_OPERATORS[account];
  return { account, password, code: await demoOperatorCode(account) };
}
