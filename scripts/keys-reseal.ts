/**
 * `npm run keys:reseal -- [--dry-run] [--batch N] [--persist-to DIR | --config FILE]`: moves every value sealed
 * with an older card key (bank card numbers and their fingerprints, payout details, users' and
 * operators' authenticator keys) to the ring's newest key, in batches of N rows (default 100),
 * printing counts as it goes; `--dry-run` only counts what it would move, by key. Worker code does
 * the work (worker/domain/crypto/reseal.ts); this opens the D1 through the scripts' platform
 * proxy (scripts/platform.wrangler.toml).
 *
 * The keyring comes from this shell's environment, exactly as the Worker reads its secrets:
 * CARD_KEYS ("id:base64,..." newest first) and CARD_KEY (key "0"); with neither and APP_ENV not
 * "production", the public development key. Unused recovery codes are only counted: a one-way
 * hash cannot be re-sealed (docs/ops/keys.md says what retiring their key means).
 * Exit 1 when a value could not be opened (its key is not in the ring, or it is damaged).
 */
import { parseArgs } from "node:util";
import { getPlatformProxy } from "wrangler";
import { cardKeysFor } from "../worker/domain/crypto/sealing";
import { resealAll, RESEAL_BATCH_ROWS, type ResealReport } from "../worker/domain/crypto/reseal";
import type { Env } from "../worker/env";
import { PLATFORM_CONFIG } from "./lib";

const USAGE = "usage: npm run keys:reseal -- [--dry-run] [--batch N] [--persist-to DIR | --config FILE]   (keys from CARD_KEYS / CARD_KEY in the environment)";

const { values } = parseArgs({
  options: { "dry-run": { type: "boolean", default: false }, batch: { type: "string" }, "persist-to": { type: "string", default: ".wrangler/state" }, config: { type: "string" } },
  strict: true,
});
if (values.batch !== undefined && !/^\d{1,4}$/.test(values.batch)) {
  console.error(USAGE);
  process.exit(2);
}

const keys = await cardKeysFor({ APP_ENV: process.env.APP_ENV ?? "local", CARD_KEY: process.env.CARD_KEY, CARD_KEYS: process.env.CARD_KEYS });
if (keys.status !== "ok") {
  console.error(keys.status === "missing" ? "no card key: set CARD_KEYS (and CARD_KEY) as the Worker has them" : "CARD_KEYS / CARD_KEY malformed: id:base64 pairs of 32-byte keys, ids of letters, digits, _ or -");
  process.exit(2);
}

// --config: another platform config, e.g. one whose DB binding is `remote = true` with a deployed
// database's id (docs/ops/keys.md); wrangler then proxies D1 to Cloudflare.
const { env, dispose } = await getPlatformProxy<Env>({ configPath: values.config ?? PLATFORM_CONFIG, persist: { path: `${values["persist-to"]}/v3` } });
try {
  const dry_run = values["dry-run"]!;
  console.log(`keyring: ${keys.keys.ring.map((k) => k.id).join(", ")} (newest ${keys.keys.id})${dry_run ? "; dry run, nothing is written" : ""}`);
  const report = await resealAll(env.DB, keys.keys, {
    dry_run,
    batch_rows: values.batch ? Number(values.batch) : RESEAL_BATCH_ROWS,
    onBatch: (table, t) => console.log(`  ${table}: ${t.resealed} re-sealed, ${t.skipped.length} skipped so far`),
  });
  printReport(report);
  process.exitCode = report.tables.some((t) => t.skipped.some((s) => s.reason !== "changed")) ? 1 : 0;
} finally {
  await dispose();
}

function printReport(r: ResealReport) {
  const verb = r.dry_run ? "would re-seal" : "re-sealed";
  for (const t of r.tables) {
    const stale = Object.values(t.stale_by_key).reduce((a, b) => a + b, 0);
    const byKey = Object.entries(t.stale_by_key).map(([id, n]) => `key ${id}: ${n}`).join(", ") || "none";
    const done = r.dry_run ? stale : t.resealed;
    console.log(`${`${t.table}.${t.column}`.padEnd(30)} under older keys ${String(stale).padStart(6)} (${byKey}); ${verb} ${done}`);
    for (const s of t.skipped) console.log(`  skipped ${t.table} ${s.pk}: ${s.reason}`);
  }
  const codes = Object.entries(r.recovery_codes_by_key).filter(([id]) => id !== r.newest_key_id);
  console.log(`unused recovery codes under older keys: ${codes.map(([id, n]) => `key ${id}: ${n}`).join(", ") || "none"} (not re-sealable; they stop working when their key leaves the ring)`);
  if (!r.dry_run) console.log(`${r.batches} batches`);
}
