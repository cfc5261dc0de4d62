/**
 * The D1 migrations in the repo: applying them, the one way (`migrationsApply`), and which of
 * them contract the schema (drop or rename a table or column). A rollback never rewinds D1, so a
 * deploy may only expand; a contraction ships on its own, after the code that stopped using what
 * it removes has been deployed, and says so in its file with a `-- contract:` line (decision 126).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { DeployEnv } from "./deploy/config";

/** Whose D1 the migrations go to: a local state directory (wrangler's --persist-to) or a deployed environment's. */
export type MigrationTarget = { local: string } | { remote: DeployEnv };

const where = (t: MigrationTarget) => ("local" in t ? ["--local", "--persist-to", t.local] : ["--remote", "--env", t.remote]);

/**
 * The one command that applies migrations/ (wrangler's arguments): wrangler applies the files not
 * yet recorded in the database's d1_migrations, in order. Every local state runs it (`prepare` in
 * scripts/lib.ts: start, dev, the e2e server, the integration tests, the ops drill; the benches'
 * `prepareState`), and so does a deploy with --apply-migrations (scripts/deploy/cloud.ts). The API
 * tests, inside workerd where wrangler cannot run, apply the same files with vitest-pool-workers
 * (read in vitest.config.ts, applied in tests/api/setup.ts).
 */
export function migrationsApply(target: MigrationTarget): string[] {
  return ["d1", "migrations", "apply", "DB", ...where(target)];
}

/** The migrations the target's database has not applied yet (wrangler's arguments). */
export function migrationsList(target: MigrationTarget): string[] {
  return ["d1", "migrations", "list", "DB", ...where(target)];
}

export type LocalMigration = { name: string; sql: string };

/** `migrations/NNNN_name.sql` in order, as wrangler applies them. */
export function localMigrations(dir = "migrations"): LocalMigration[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((f) => ({ name: f, sql: readFileSync(join(dir, f), "utf8") }));
}

/** The line that makes a contraction deliberate: `-- contract: <what goes, which deploy stopped using it>`. */
export const CONTRACT_MARK = /^--\s*contract:\s*(\S.*)$/im;

const ident = String.raw`[\`"\[]?([A-Za-z_][A-Za-z0-9_]*)[\`"\]]?`;

/** Statements of one migration file, comments removed. */
function statements(sql: string): string[] {
  return sql
    .replace(/--[^\n]*/g, "")
    .split(/;/)
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter(Boolean);
}

/**
 * What a migration's SQL removes or renames. drizzle-kit rebuilds a SQLite table as
 * `CREATE __new_t; INSERT; DROP t; ALTER __new_t RENAME TO t`: that drop and rename keep the
 * table (the columns it may lose are found by `snapshotContractions`).
 */
export function sqlContractions(sql: string): string[] {
  const found: string[] = [];
  const stmts = statements(sql);
  const rebuilt = new Set(
    stmts.flatMap((s) => {
      const m = new RegExp(String.raw`^ALTER TABLE ${ident} RENAME TO ${ident}$`, "i").exec(s);
      return m && m[1] === `__new_${m[2]}` ? [m[2]] : [];
    }),
  );
  for (const s of stmts) {
    let m: RegExpExecArray | null;
    if ((m = new RegExp(String.raw`^DROP TABLE (?:IF EXISTS )?${ident}`, "i").exec(s)) && !rebuilt.has(m[1])) found.push(`drops table ${m[1]}`);
    else if ((m = new RegExp(String.raw`^ALTER TABLE ${ident} DROP (?:COLUMN )?${ident}`, "i").exec(s))) found.push(`drops column ${m[1]}.${m[2]}`);
    else if ((m = new RegExp(String.raw`^ALTER TABLE ${ident} RENAME (?:COLUMN )?${ident} TO ${ident}`, "i").exec(s)) && !/^RENAME TO/i.test(s.split(" ").slice(3).join(" "))) found.push(`renames column ${m[1]}.${m[2]} to ${m[3]}`);
    else if ((m = new RegExp(String.raw`^ALTER TABLE ${ident} RENAME TO ${ident}$`, "i").exec(s)) && m[1] !== `__new_${m[2]}`) found.push(`renames table ${m[1]} to ${m[2]}`);
  }
  return found;
}

type Snapshot = { tables: Record<string, { name: string; columns: Record<string, unknown> }> };

/** Tables and columns in one drizzle snapshot that the next one no longer has. */
export function snapshotDiff(before: Snapshot, after: Snapshot): string[] {
  const found: string[] = [];
  const afterByName = new Map(Object.values(after.tables).map((t) => [t.name, t]));
  for (const t of Object.values(before.tables)) {
    const next = afterByName.get(t.name);
    if (!next) found.push(`drops table ${t.name}`);
    else for (const col of Object.keys(t.columns)) if (!(col in next.columns)) found.push(`drops column ${t.name}.${col}`);
  }
  return found;
}

/** The snapshot-level contractions of a migration, read from drizzle-kit's journal (none when it has no snapshot). */
export function snapshotContractions(name: string, dir = "migrations"): string[] {
  const journal = join(dir, "meta", "_journal.json");
  if (!existsSync(journal)) return [];
  const entries = (JSON.parse(readFileSync(journal, "utf8")) as { entries: { idx: number; tag: string }[] }).entries;
  const i = entries.findIndex((e) => `${e.tag}.sql` === name);
  if (i <= 0) return [];
  const snap = (idx: number) => join(dir, "meta", `${String(idx).padStart(4, "0")}_snapshot.json`);
  const [before, after] = [snap(entries[i - 1].idx), snap(entries[i].idx)];
  if (!existsSync(before) || !existsSync(after)) return [];
  return snapshotDiff(JSON.parse(readFileSync(before, "utf8")), JSON.parse(readFileSync(after, "utf8")));
}

export type Contraction = { migration: string; changes: string[]; deliberate: string | null };

/** Every contraction among `pending`, with the `-- contract:` reason when its file gives one. */
export function contractions(pending: LocalMigration[], snapshotsOf: (name: string) => string[] = (n) => snapshotContractions(n)): Contraction[] {
  return pending.flatMap((m) => {
    const changes = [...new Set([...sqlContractions(m.sql), ...snapshotsOf(m.name)])];
    return changes.length === 0 ? [] : [{ migration: m.name, changes, deliberate: CONTRACT_MARK.exec(m.sql)?.[1] ?? null }];
  });
}
