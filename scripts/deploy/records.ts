/**
 * The deploy record: one JSON line per deploy or rollback in `deploys/<env>.jsonl`, committed by
 * the operator after the run (decision 127). It is what the next deploy and a rollback read to
 * know which D1 migrations and Durable Object migration tag each version went out with, and it
 * holds the D1 Time Travel bookmark taken just before each deploy's migrations.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { DeployEnv, } from "./config";

export type DeployRecord = {
  kind: "deploy" | "rollback";
  at: string;
  env: DeployEnv;
  git_commit: string;
  version_id: string;
  /** Share of traffic the version got (a gradual deploy records its first step). */
  percentage: number;
  /** The version it shared traffic with during a gradual deploy, if any. */
  previous_version_id: string | null;
  /** D1 Time Travel bookmark from before this deploy's migrations ("" for a rollback, which migrates nothing). */
  bookmark: string;
  /** Every D1 migration applied once this deploy was done. */
  migrations: string[];
  /** The last Durable Object migration tag of the configuration this version went out with. */
  do_migration_tag: string | null;
};

export interface RecordStore {
  list(env: DeployEnv): DeployRecord[];
  append(record: DeployRecord): void;
  where(env: DeployEnv): string;
}

export function fileRecords(dir = "deploys"): RecordStore {
  const where = (env: DeployEnv) => join(dir, `${env}.jsonl`);
  return {
    where,
    list(env) {
      const file = where(env);
      if (!existsSync(file)) return [];
      return readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as DeployRecord);
    },
    append(record) {
      const file = where(record.env);
      mkdirSync(dirname(file), { recursive: true });
      appendFileSync(file, `${JSON.stringify(record)}\n`);
    },
  };
}

/** Records in memory (tests). */
export function memoryRecords(initial: DeployRecord[] = []): RecordStore & { all: DeployRecord[] } {
  const all = [...initial];
  return { all, where: (env) => `deploys/${env}.jsonl`, list: (env) => all.filter((r) => r.env === env), append: (r) => void all.push(r) };
}
