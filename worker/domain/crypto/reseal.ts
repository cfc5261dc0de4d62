/**
 * Re-sealing (decision 135): after a new card key joins the ring, every value still sealed with
 * an older key is opened and sealed again with the newest, so the older key can leave the ring.
 * Runs in bounded batches (each a few reads and one D1 batch of guarded updates), so it can be
 * stopped and run again at any point: a value already moved is no longer selected, and an update
 * only lands on the value it read (a row changed meanwhile is left for the next run).
 *
 * Plain SQL over the four sealed columns, not drizzle: one loop serves them all. Column names are
 * constants here, never input.
 */
import { cardFingerprint, LEGACY_KEY_ID, openCard, sealCard, type CardKeys } from "./sealing";

/** A sealed column: its table, key column and value column (bank cards also re-key their fingerprint). */
type Target = { table: string; pk: string; column: string; fingerprint?: string };
export const SEALED_COLUMNS: readonly Target[] = [
  { table: "bank_cards", pk: "id", column: "card_number", fingerprint: "card_fingerprint" },
  { table: "withdrawals", pk: "id", column: "payout_details" },
  { table: "two_factor", pk: "user_id", column: "secret" },
  { table: "operator_two_factor", pk: "operator_id", column: "secret" },
];

export const RESEAL_BATCH_ROWS = 100;

export type ResealTable = {
  table: string;
  column: string;
  /** Values not under the newest key, by the key id they are sealed with (before this run). */
  stale_by_key: Record<string, number>;
  resealed: number;
  /** Rows left as they were: their key is not in the ring, the value does not open, or it changed meanwhile. */
  skipped: { pk: number; reason: "key_unknown" | "unreadable" | "key_missing" | "changed" }[];
};
export type ResealReport = {
  newest_key_id: string;
  dry_run: boolean;
  tables: ResealTable[];
  /** Unused recovery codes by key ("sha256" for the ones from before decision 116): hashes cannot be re-sealed. */
  recovery_codes_by_key: Record<string, number>;
  batches: number;
};

/** SQL: the value is sealed (v1 or v2) but not with `?1`, the newest key's id. */
const staleSql = (column: string) =>
  `(instr(${column}, 'v1.') = 1 OR instr(${column}, 'v2.') = 1)` +
  ` AND NOT (instr(${column}, 'v2.' || ?1 || '.') = 1 OR (?1 = '${LEGACY_KEY_ID}' AND instr(${column}, 'v1.') = 1))`;

/** SQL: the key id a sealed value names ("0" for v1). */
const keyIdSql = (column: string) => `CASE WHEN instr(${column}, 'v1.') = 1 THEN '${LEGACY_KEY_ID}' ELSE substr(${column}, 4, instr(substr(${column}, 4), '.') - 1) END`;

async function staleByKey(db: D1Database, t: Target, newest: string): Promise<Record<string, number>> {
  const rows = await db
    .prepare(`SELECT ${keyIdSql(t.column)} AS key_id, count(*) AS n FROM ${t.table} WHERE ${staleSql(t.column)} GROUP BY key_id ORDER BY key_id`)
    .bind(newest)
    .all<{ key_id: string; n: number }>();
  return Object.fromEntries(rows.results.map((r) => [r.key_id, r.n]));
}

async function recoveryCodesByKey(db: D1Database): Promise<Record<string, number>> {
  const rows = await db
    .prepare(
      `SELECT CASE WHEN instr(code_hash, 'v1:') = 1 THEN '${LEGACY_KEY_ID}' WHEN instr(code_hash, 'v2:') = 1 THEN substr(code_hash, 4, instr(substr(code_hash, 4), ':') - 1) ELSE 'sha256' END AS key_id, count(*) AS n
       FROM two_factor_recovery_codes WHERE used_at_ms IS NULL GROUP BY key_id ORDER BY key_id`,
    )
    .all<{ key_id: string; n: number }>();
  return Object.fromEntries(rows.results.map((r) => [r.key_id, r.n]));
}

type Row = { pk: number; value: string; fingerprint: string | null };

/** One batch of one column: the next `limit` stale rows after `after_pk`, re-sealed in one D1 batch. */
async function resealBatch(db: D1Database, keys: CardKeys, t: Target, after_pk: number, limit: number, out: ResealTable): Promise<{ last_pk: number | null }> {
  const fp = t.fingerprint ? `, ${t.fingerprint} AS fingerprint` : ", NULL AS fingerprint";
  const rows = await db
    .prepare(`SELECT ${t.pk} AS pk, ${t.column} AS value${fp} FROM ${t.table} WHERE ${t.pk} > ?2 AND ${staleSql(t.column)} ORDER BY ${t.pk} LIMIT ?3`)
    .bind(keys.id, after_pk, limit)
    .all<Row>();
  if (!rows.results.length) return { last_pk: null };
  const writes: { pk: number; stmt: D1PreparedStatement }[] = [];
  for (const row of rows.results) {
    const opened = await openCard(keys, row.value);
    if (opened.status !== "ok") {
      out.skipped.push({ pk: row.pk, reason: opened.status });
      continue;
    }
    const sealed = await sealCard(keys, opened.text);
    // A card's fingerprint moves with it (numbers are stored normalized); "legacy:" ones stay.
    const rekey = t.fingerprint && row.fingerprint?.startsWith("v1:");
    const stmt = rekey
      ? db.prepare(`UPDATE ${t.table} SET ${t.column} = ?1, ${t.fingerprint} = ?2 WHERE ${t.pk} = ?3 AND ${t.column} = ?4`).bind(sealed, await cardFingerprint(keys, opened.text), row.pk, row.value)
      : db.prepare(`UPDATE ${t.table} SET ${t.column} = ?1 WHERE ${t.pk} = ?2 AND ${t.column} = ?3`).bind(sealed, row.pk, row.value);
    writes.push({ pk: row.pk, stmt });
  }
  if (writes.length) {
    const results = await db.batch(writes.map((w) => w.stmt));
    results.forEach((r, i) => (r.meta.changes ? out.resealed++ : out.skipped.push({ pk: writes[i].pk, reason: "changed" })));
  }
  return { last_pk: rows.results[rows.results.length - 1].pk };
}

/**
 * Moves every value sealed with an older key to the newest key, `batch_rows` at a time; with
 * `dry_run` it only counts. `onBatch` hears each batch (the command prints progress).
 */
export async function resealAll(
  db: D1Database,
  keys: CardKeys,
  opts: { dry_run: boolean; batch_rows?: number; onBatch?: (table: string, t: ResealTable) => void },
): Promise<ResealReport> {
  const limit = Math.max(1, Math.min(opts.batch_rows ?? RESEAL_BATCH_ROWS, 1000));
  const report: ResealReport = { newest_key_id: keys.id, dry_run: opts.dry_run, tables: [], recovery_codes_by_key: await recoveryCodesByKey(db), batches: 0 };
  for (const t of SEALED_COLUMNS) {
    const out: ResealTable = { table: t.table, column: t.column, stale_by_key: await staleByKey(db, t, keys.id), resealed: 0, skipped: [] };
    report.tables.push(out);
    if (opts.dry_run) continue;
    let after_pk = 0;
    for (;;) {
      const { last_pk } = await resealBatch(db, keys, t, after_pk, limit, out);
      if (last_pk === null) break;
      report.batches++;
      after_pk = last_pk;
      opts.onBatch?.(t.table, out);
    }
  }
  return report;
}
