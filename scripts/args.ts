/**
 * Command lines of the scripts, read by node:util `parseArgs` like every other script here:
 * `--persist-to=DIR` and `--persist-to DIR` mean the same, and a flag the script does not know
 * is refused with its usage instead of being ignored (a mistyped `--persist-to` once sent a
 * command to the default state without a word).
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { pathToFileURL } from "node:url";

/** The local state the scripts read unless `--persist-to DIR` names another (where `npm run dev` keeps it). */
export const DEFAULT_PERSIST_TO = ".wrangler/state";

/** A command line the script cannot run: what was wrong, then the script's usage. */
export class UsageError extends Error {}

/** `parseArgs`, strict (unknown flags and flags without their value refused), its complaint followed by `usage`. */
export function scriptArgs<T extends ParseArgsConfig>(config: T, usage: string): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs<T>({ strict: true, ...config });
  } catch (e) {
    throw new UsageError(`${e instanceof Error ? e.message : String(e)}\n${usage}`);
  }
}

/**
 * Runs a script's `main` when its file is the command (`tsx scripts/x.ts`), not when a test
 * imports it for its argument parser. A UsageError is printed and exits 2.
 */
export async function runScript(moduleUrl: string, main: () => Promise<void>): Promise<void> {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? "").href) return;
  try {
    await main();
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(e.message);
    process.exit(2);
  }
}
