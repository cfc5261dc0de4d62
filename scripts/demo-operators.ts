/**
 * The demo's console operators (scripts/seed-demo.ts creates them), in a file of their own with
 * no imports so journeys, benches and integration tests can sign in as them. Their passwords
 * and authenticator keys are public on purpose (README, "Demo logins"): a code is
 *   node -e 'import("otpauth").then(({TOTP})=>console.log(new TOTP({secret:"OPERATORDEMOKEYPROOFLINETESTONLY"}).generate()))'
 */
export const DEMO_OPERATORS = {
  operator: { account: "operator", password: "operator12345", totp_key: "OPERATORDEMOKEYPROOFLINETESTONLY" },
  /** A second operator, so the demo can show four eyes (large deposits, adjustments). */
  auditor: { account: "auditor", password: "auditor12345", totp_key: "AUDITORDEMOKEYPROOFLINETESTONLY2" },
} as const;

export type DemoOperator = keyof typeof DEMO_OPERATORS;
