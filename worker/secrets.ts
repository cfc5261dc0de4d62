/**
 * Every secret the Worker reads (`wrangler secret put NAME --env <env>`), in one list: the
 * deploy preflight refuses a staging or production deploy that lacks one (scripts/deploy), and
 * a unit test holds this list to worker/env.ts. Never a var in wrangler.toml: vars are public
 * in the dashboard and in the repo.
 */
import type { Env } from "./env";

export type SecretSpec = {
  name: keyof Env & string;
  /** What breaks without it in production. */
  why: string;
  /** How an operator makes a fresh value (piped into `wrangler secret put`). */
  make: string;
  /** Other secrets that stand in for this one (the keyring for the single card key). */
  satisfiedBy?: readonly string[];
  /** Set only for a while (a key rotation): never required. */
  optional?: true;
};

export const SECRETS = [
  { name: "CARD_KEY", why: "seals bank card numbers and keys two-factor recovery codes; without it (or CARD_KEYS) no card can be bound", make: "openssl rand -base64 32", satisfiedBy: ["CARD_KEYS"] },
  { name: "CARD_KEYS", why: "the sealing keyring (id:key pairs, newest first) once a card key has been rotated (docs/ops/keys.md)", make: "see docs/ops/keys.md", optional: true },
  { name: "LOG_SIGNING_KEY", why: "signs the transparency log's checkpoints; without it the log is off", make: "openssl rand -base64 32" },
  { name: "LOG_PREVIOUS_SIGNING_KEY", why: "the old log key, only while a handover checkpoint is signed by both (docs/ops/keys.md)", make: "the retiring LOG_SIGNING_KEY", optional: true },
  { name: "LOG_PSEUDONYM_KEY", why: "names accounts in the transparency log; without it the log is off", make: "openssl rand -base64 32" },
  { name: "VAPID_PRIVATE_KEY", why: "signs Web Push messages; without it production sends no push", make: "npx tsx scripts/deploy/vapid-key.ts" },
] as const satisfies readonly SecretSpec[];

export type SecretName = (typeof SECRETS)[number]["name"];
