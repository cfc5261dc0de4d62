/** `tsx scripts/seed.ts [--persist-to DIR]`: seeds the local D1 that `wrangler dev` uses. */
import { getPlatformProxy } from "wrangler";
import { getDb } from "../worker/db/client";
import type { Env } from "../worker/env";
import { DEFAULT_PERSIST_TO, runScript, scriptArgs } from "./args";
import { PLATFORM_CONFIG } from "./lib";
import { seedDemo } from "./seed-demo";

const USAGE = "usage: tsx scripts/seed.ts [--persist-to DIR]";

/** `--persist-to DIR` (or `=DIR`), nothing else. */
export function seedArgs(argv: string[]): { persist_to: string } {
  const { values } = scriptArgs({ args: argv, options: { "persist-to": { type: "string", default: DEFAULT_PERSIST_TO } } }, USAGE);
  return { persist_to: values["persist-to"] };
}

await runScript(import.meta.url, async () => {
  const { persist_to } = seedArgs(process.argv.slice(2));
  const { env, dispose } = await getPlatformProxy<Env>({ configPath: PLATFORM_CONFIG, persist: { path: `${persist_to}/v3` } });
  try {
    const done = await seedDemo(getDb(env.DB), env.UPLOADS);
    console.log(done.length ? `seeded: ${done.join(", ")}` : "seed: demo data already present");
  } finally {
    await dispose();
  }
});
