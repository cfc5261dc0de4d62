/**
 * Reloads nobody asked for (a socket's news, a timer) wait for the page to be quiet: a reload
 * started while a fetcher's submission runs makes the router drop that submission's redirect
 * (seen as a two-factor sign-in that stayed on its code step, signed in, when the user channel
 * of the page just left closed late and reloaded). Every such reload goes through
 * `useBackgroundRevalidate`; the few direct `revalidate()` calls left are the user's own.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { quietNow } from "../../../app/lib/revalidate";
import { sourceFiles } from "../source-files";

const ROOT = join(__dirname, "../../..");

/** Direct reloads, each after the user's own action (a button, or their form's answer). */
const USER_ASKED: Record<string, string> = {
  "app/routes/admin/ledger-check.tsx": "the operator's 'run the check' button",
  "app/routes/me/limits.tsx": "after the user's own form was answered (the fetcher is done)",
};

const sources = (dir: string) => sourceFiles(dir);

describe("background reloads", () => {
  it("start only when nothing is being submitted, navigated or reloaded", () => {
    expect(quietNow("idle", "idle", [])).toBe(true);
    expect(quietNow("idle", "idle", ["idle", "idle"])).toBe(true);
    expect(quietNow("idle", "idle", ["idle", "submitting"])).toBe(false);
    expect(quietNow("idle", "idle", ["loading"])).toBe(false);
    expect(quietNow("submitting", "idle", [])).toBe(false);
    expect(quietNow("loading", "idle", [])).toBe(false);
    expect(quietNow("idle", "loading", [])).toBe(false);
  });

  it("every direct revalidate() in the pages is one the user asked for", () => {
    const direct = sources(join(ROOT, "app"))
      .filter((f) => !f.endsWith(join("app", "lib", "revalidate.ts")))
      .filter((f) => /\.revalidate\(\)/.test(readFileSync(f, "utf8")))
      .map((f) => relative(ROOT, f));
    expect(direct.filter((f) => !(f in USER_ASKED))).toEqual([]);
  });
});
