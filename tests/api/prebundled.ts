/**
 * The packages the API tests' workerd gets prebundled (vitest.config.ts, `deps.optimizer.ssr`):
 * each one as a few files, once, instead of every file of the package through the module runner
 * in every workerd that loads it. A package the Worker, its objects or these tests import and
 * that is missing here was measured at several CPU-seconds a run (each isolated file loads the
 * whole graph again); tests/unit/api-prebundled.test.ts finds such a package.
 */
export const PREBUNDLED = [
  // The pages' server build (a few API tests render pages) and what it imports.
  "@remix-run/cloudflare", "@remix-run/server-runtime", "cookie", "set-cookie-parser",
  "i18next", "react-i18next", "remix-i18next/server", "react", "react-dom/server", "isbot",
  "hono", "hono/secure-headers", "hono/route", "hono/utils/http-status",
  "drizzle-orm", "drizzle-orm/sqlite-core", "drizzle-orm/d1", "drizzle-orm/batch",
  // worker/db/client.ts builds drizzle's client from its parts.
  "drizzle-orm/relations", "drizzle-orm/d1/session", "drizzle-orm/sqlite-core/dialect", "drizzle-orm/sqlite-core/query-builders/query",
  // The sockets' protocol (durable-objects/protocol.ts) is written with zod/mini: the browser loads it too.
  "zod", "zod/mini",
  "viem", "viem/accounts", "viem/siwe",
  "@simplewebauthn/server", "@simplewebauthn/server/helpers", "otpauth",
  "@scure/base", "@scure/bip32",
  "@noble/hashes/sha2.js", "@noble/hashes/sha3.js", "@noble/hashes/argon2.js", "@noble/hashes/pbkdf2.js", "@noble/hashes/legacy.js", "@noble/hashes/utils.js", "@noble/hashes/hmac.js",
  "@noble/curves/secp256k1.js", "@noble/curves/ed25519.js",
  // The property tests.
  "fast-check",
] as const;
