export {};
/**
 * Prints a fresh Web Push signing key, a P-256 private JWK as JSON, for
 * `npx tsx scripts/deploy/vapid-key.ts | npx wrangler secret put VAPID_PRIVATE_KEY --env <env>`
 * (worker/push/vapid.ts reads it). Nothing is written anywhere else.
 */
const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign"])) as CryptoKeyPair;
process.stdout.write(JSON.stringify(await crypto.subtle.exportKey("jwk", pair.privateKey)));
