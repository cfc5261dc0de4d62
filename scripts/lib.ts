import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { migrationsApply } from "./migrations";

/** Local runs never phone home (no metrics, no network look-ups). */
export const quietEnv = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  NO_UPDATE_NOTIFIER: "1",
};

export const bin = (name: string) => `node_modules/.bin/${name}`;

/** Set by `npm test` only: a migrated, seeded state that `prepare` copies (decision 152). */
export const TEMPLATE_STATE_ENV = "PROOFLINE_TEMPLATE_STATE";
/** Set by `npm test` only: the Worker bundled once, for every server it starts (decision 152). */
export const BUNDLE_ENV = "PROOFLINE_BUNDLE";

/**
 * Set by `npm test` only: the folder every local state of the run lives in, on a RAM disk when the
 * machine has one (decision 158). Unset, states live in `.wrangler/` as always.
 */
export const STATE_ROOT_ENV = "PROOFLINE_STATE_ROOT";
/** Where the local state called `name` lives (`.wrangler/<name>`, or under npm test's root). */
export const stateDir = (name: string) => join(process.env[STATE_ROOT_ENV] ?? ".wrangler", name);
/** The Playwright server's state: `E2E_STATE` (two halves of a run side by side, scripts/test.ts), else `e2e`. */
export const e2eStateDir = () => process.env.E2E_STATE ?? stateDir("e2e");

/** The D1/R2-only config for getPlatformProxy in Node scripts (see the file). */
export const PLATFORM_CONFIG = "scripts/platform.wrangler.toml";

/** Runs a command with inherited output; rejects on a non-zero exit. */
export function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: "inherit", env: opts.env ?? quietEnv });
    child.on("error", reject);
    child.on("exit", (code, signal) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(" ")} exited with ${code ?? signal}`))));
  });
}

/** Starts a long-running command and stops it with this process. */
export function serve(cmd: string, args: string[]): ChildProcess {
  const child = spawn(cmd, args, { stdio: "inherit", env: quietEnv });
  const stop = () => child.kill("SIGTERM");
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  child.on("exit", (code) => process.exit(code ?? 0));
  return child;
}

/**
 * The pages' production build (`remix build`), the one way every script and test builds. It
 * says NODE_ENV=production itself: the build takes its mode from NODE_ENV, and a build started
 * under vitest (NODE_ENV=test) shipped React's development build, unminified, to the journeys.
 */
export async function buildApp(opts: { quiet?: boolean } = {}): Promise<void> {
  const env = { ...quietEnv, NODE_ENV: "production" };
  await (opts.quiet ? runQuietly(bin("remix"), ["build"], env) : run(bin("remix"), ["build"], { env }));
  writeFileSync(SERVER_BUILD_TYPES, SERVER_BUILD_DECLARATION);
}

/**
 * The server bundle's type, written beside it by every build (decision 157). TypeScript reads a
 * declaration before a JavaScript file of the same name, so the typecheck (the deploy preflight,
 * `npm run typecheck`) reads these lines instead of inferring types from the 70,000-line bundle
 * that worker/index.ts imports: about a quarter of its CPU time.
 */
const SERVER_BUILD_TYPES = "build/server/index.d.ts";
const SERVER_BUILD_DECLARATION = `// Written by buildApp (scripts/lib.ts): the Worker hands this module to Remix as a ServerBuild.
declare const build: unknown;
export = build;
`;

/** Runs a command, its output kept and shown only if it fails. */
export function runQuietly(cmd: string, args: string[], env: NodeJS.ProcessEnv = quietEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    child.stdout!.on("data", (b: Buffer) => out.push(b));
    child.stderr!.on("data", (b: Buffer) => out.push(b));
    child.on("error", reject);
    // The last lines say why; the whole output of a long command would bury them.
    const said = () => Buffer.concat(out).toString().split("\n").slice(-40).join("\n");
    child.on("exit", (code, signal) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(" ")} exited with ${code ?? signal}:\n${said()}`))));
  });
}

/**
 * Build, migrate and seed a local state directory (the same steps for start, dev and e2e).
 * Tests that run beside others pass `build: false`: `npm test` builds once, first, so no two
 * builds ever write the shared output at the same time.
 */
export async function prepare(persistTo: string, opts: { build?: boolean } = {}) {
  if (opts.build !== false) await buildApp();
  // `npm test` migrates and seeds one state first and every server it starts begins from a copy
  // of it (decision 152): the same rows, without a dozen wrangler and seed runs.
  const template = process.env[TEMPLATE_STATE_ENV];
  if (template) return cpSync(template, persistTo, { recursive: true });
  await run(bin("wrangler"), migrationsApply({ local: persistTo }));
  await run(bin("tsx"), ["scripts/seed.ts", "--persist-to", persistTo]);
}

/** The local server: production's D1 limits held (docs/decisions/043), simulated prices. */
export function wranglerDev(port: string, persistTo: string, extra: string[] = []) {
  return serve(bin("wrangler"), ["dev", "--ip", "127.0.0.1", "--port", port, "--persist-to", persistTo, "--var", "APP_ENV:local", "--var", "D1_LIMITS:enforce", ...extra]);
}
