/** `tsx scripts/seed.ts [--persist-to DIR]`: seeds the local D1 that `wrangler dev` uses. */
import { getPlatformProxy } from "wrangler";
import { getDb } from "../worker/db/client";
import type { Env } from "../worker/env";
import { PLATFORM_CONFIG } from "./lib";
import { seedDemo } from "./seed-demo";

const i = process.argv.indexOf("--persist-to");
const persistTo = i > 0 ? process.argv[i + 1] : ".wrangler/state";
const { env, dispose } = await getPlatformProxy<Env>({ configPath: PLATFORM_CONFIG, persist: { path: `${persistTo}/v3` } });
try {
  const done = await seedDemo(getDb(env.DB), env.UPLOADS);
  console.log(done.length ? `seeded: ${done.join(", ")}` : "seed: demo data already present");
} finally {
  await dispose();
}
