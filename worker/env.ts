import type { QuoteHubApi } from "../durable-objects/quotes/hub-api";
import type { UserChannelApi } from "../durable-objects/user-channel/channel-api";
import type { ServiceConversationApi, ServiceInboxApi } from "../durable-objects/service/conversation-api";
import type { LogSequencerApi } from "../durable-objects/transparency/log-api";
import type { QuoteRelayApi } from "../durable-objects/quotes/hub-api";

/** Bindings and variables of the one Worker (see wrangler.toml). */
export interface Env {
  DB: D1Database;
  UPLOADS: R2Bucket;
  ASSETS: Fetcher;
  USER_CHANNEL: DurableObjectNamespace<UserChannelApi>;
  /** Typed by the hub's RPC surface, not its class: the class imports Env. */
  QUOTE_HUB: DurableObjectNamespace<QuoteHubApi>;
  /** Customer service: one object per conversation (sequencer and fan-out), one inbox for operators. */
  SERVICE_CONVERSATION: DurableObjectNamespace<ServiceConversationApi>;
  SERVICE_INBOX: DurableObjectNamespace<ServiceInboxApi>;
  /** The transparency log: its sequencer (one object) and the bucket of its tiles and checkpoints. */
  LOG_SEQUENCER: DurableObjectNamespace<LogSequencerApi>;
  /** Quote relays (decision 103): QUOTE_RELAYS of them per symbol when set above 0. */
  QUOTE_RELAY: DurableObjectNamespace<QuoteRelayApi>;
  QUOTE_RELAYS?: string;
  LOG: R2Bucket;
  /** The log's name in checkpoints and its verifier key (default "localhost/proofline"). */
  LOG_ORIGIN?: string;
  /**
   * Secrets: LOG_SIGNING_KEY, the Ed25519 seed that signs checkpoints (32 bytes, base64), and
   * LOG_PSEUDONYM_KEY, the HMAC key of account pseudonyms (32 bytes, base64). Without them in
   * production the log is off and /api/proof says it is not configured; elsewhere the sequencer
   * generates local ones into its own storage.
   */
  LOG_SIGNING_KEY?: string;
  LOG_PSEUDONYM_KEY?: string;
  /**
   * Secret, only during a log-key handover (decision 136, docs/ops/keys.md): the signing key the
   * latest checkpoint is signed with. The next checkpoint is signed by it and LOG_SIGNING_KEY and
   * names the new key; remove it after that.
   */
  LOG_PREVIOUS_SIGNING_KEY?: string;
  /**
   * The log's witnesses (decision 108): one per line (or comma), "<verifier key> <URL>", the key
   * `<name>+<key id hex>+<base64(0x04 || Ed25519 public key)>` (C2SP tlog-cosignature v1) and
   * the URL the witness's add-checkpoint sits under (C2SP tlog-witness). Empty: no witnesses.
   */
  LOG_WITNESSES?: string;
  /** How many of LOG_WITNESSES must cosign a checkpoint before it is the latest (1..n; all when unset). */
  LOG_WITNESS_QUORUM?: string;
  /**
   * Cloudflare Email Service (`[[send_email]]` in wrangler.toml; worker/mail/send.ts, decision
   * 139): verification and recovery codes and notices by mail. Absent where Node scripts bind the app.
   */
  EMAIL?: SendEmail;
  /** The sender address of mail, on a domain onboarded to Email Service (default worker/mail/send.ts's DEFAULT_MAIL_FROM). */
  MAIL_FROM?: string;
  /** Sign-in and registration attempts per client IP (absent where Node scripts bind the app). */
  AUTH_LIMIT?: RateLimit;
  /** "simulation" (default) or "binance"; with "binance", PRICE_FEED_URL is the stream base. */
  PRICE_FEED?: string;
  PRICE_FEED_URL?: string;
  /** Upstream hosts the feed may connect to ("host[:port]", comma-separated); wss only. */
  PRICE_FEED_ALLOWED_HOSTS?: string;
  /** Test-only: "1" lets a non-production run use a plain ws upstream on 127.0.0.1. */
  PRICE_FEED_ALLOW_LOOPBACK?: string;
  /** Test-only: fixes the simulation's randomness, honoured only when APP_ENV is "test". */
  SIM_SEED?: string;
  /** "local" under `npm start`, "test" in tests; "production" when deployed (see worker/mode.ts). */
  APP_ENV: string;
  /**
   * Secret (`wrangler secret put CARD_KEY`): 32 random bytes, base64, sealing bank card numbers
   * (worker/domain/crypto/sealing.ts). Required in production; elsewhere a public
   * development key stands in.
   */
  CARD_KEY?: string;
  /**
   * Secret: the card keyring ("id:base64,id:base64", newest first; decision 135). New values are
   * sealed with the first; CARD_KEY, when set, is key "0" at the end. docs/ops/keys.md.
   */
  CARD_KEYS?: string;
  /**
   * Secret (`wrangler secret put VAPID_PRIVATE_KEY`): the Web Push signing key, a P-256 private
   * JWK as JSON (worker/push/vapid.ts). Without it production sends no push; local runs and
   * tests make their own pair on first use.
   */
  VAPID_PRIVATE_KEY?: string;
  /** Test-only: multiplies the per-network guest limits of customer service (the e2e server; worker/domain/service/guest-limits.ts); ignored in production. */
  GUEST_LIMITS_SCALE?: string;
  /** Test-only: "1" lets push endpoints on `.test` hosts stand for a push service (worker/push/endpoints.ts); ignored in production. */
  PUSH_TEST_HOSTS?: string;
  /** Who runs the push sender, for push services to reach: "mailto:..." or an https URL (RFC 8292 `sub`). */
  VAPID_SUBJECT?: string;
  /** "1": a test deployment whose earn clock `/api/test/clock` may move forward (worker/clock.ts; never in production). */
  TEST_CLOCK?: string;
  /** Quote sockets one QuoteHub accepts before it answers 503 (default and ceiling 30,000; durable-objects/quotes/sockets.ts). */
  QUOTE_SOCKETS_MAX?: string;
  /** Workers Analytics Engine: every metric point, written through worker/observability/metrics.ts. */
  METRICS?: AnalyticsEngineDataset;
  /** "enforce": every invocation's D1 view holds production's limits (tests, benches; worker/db/limits.ts). */
  D1_LIMITS?: string;
}
