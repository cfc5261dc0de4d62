import { describe, expect, it } from "vitest";
import { contractions, localMigrations, snapshotContractions, snapshotDiff, sqlContractions } from "../../../scripts/migrations";

/** Expand, then contract (decision 126): what counts as a contraction in a D1 migration. */
describe("a migration's contractions", () => {
  it("finds dropped and renamed tables and columns", () => {
    expect(sqlContractions("ALTER TABLE `a` DROP COLUMN `b`;")).toEqual(["drops column a.b"]);
    expect(sqlContractions('ALTER TABLE "a" RENAME COLUMN "b" TO "c";')).toEqual(["renames column a.b to c"]);
    expect(sqlContractions("ALTER TABLE a RENAME TO z;")).toEqual(["renames table a to z"]);
    expect(sqlContractions("DROP TABLE IF EXISTS `a`;")).toEqual(["drops table a"]);
  });

  it("lets drizzle-kit's table rebuild, additions, indexes, triggers and comments pass", () => {
    const rebuild = "PRAGMA foreign_keys=OFF;--> statement-breakpoint\nCREATE TABLE `__new_t` (`id` integer);--> statement-breakpoint\nINSERT INTO `__new_t`(\"id\") SELECT \"id\" FROM `t`;--> statement-breakpoint\nDROP TABLE `t`;--> statement-breakpoint\nALTER TABLE `__new_t` RENAME TO `t`;";
    expect(sqlContractions(rebuild)).toEqual([]);
    expect(sqlContractions("ALTER TABLE `a` ADD `c` text; CREATE INDEX i ON a(c); DROP INDEX `j`; DROP TRIGGER t; -- DROP TABLE a")).toEqual([]);
  });

  it("finds a rebuild that loses a column through drizzle's snapshots", () => {
    const snap = (cols: string[]) => ({ tables: { t: { name: "t", columns: Object.fromEntries(cols.map((c) => [c, {}])) } } });
    expect(snapshotDiff(snap(["id", "old"]), snap(["id"]))).toEqual(["drops column t.old"]);
    expect(snapshotDiff(snap(["id"]), { tables: {} })).toEqual(["drops table t"]);
    expect(snapshotDiff(snap(["id"]), snap(["id", "new"]))).toEqual([]);
  });

  it("takes `-- contract: <reason>` as a deliberate contraction", () => {
    const [c] = contractions([{ name: "0040_x.sql", sql: "-- contract: b unread since 2026-11 (decision 126)\nALTER TABLE a DROP COLUMN b;" }], () => []);
    expect(c).toEqual({ migration: "0040_x.sql", changes: ["drops column a.b"], deliberate: "b unread since 2026-11 (decision 126)" });
  });

  it("finds none, undeclared, among the repo's migrations (a first deploy applies them all)", () => {
    const found = contractions(localMigrations(), (n) => snapshotContractions(n));
    expect(found.filter((c) => !c.deliberate)).toEqual([]);
  });
});
