import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { vi } from "vitest";
import { bin, quietEnv } from "../../scripts/lib";

/** Waits until the server at `base` answers its health check; it can take a while to start. */
export async function serverUp(base: string, timeout: number, interval: number) {
  await vi.waitFor(
    async () => {
      // Refused or not ok while it starts: waitFor tries again.
      if (!(await fetch(`${base}/api/health`)).ok) throw new Error(`${base} is not up yet`);
    },
    { timeout, interval },
  );
}

/**
 * The local server as `npm start` runs it (scripts/workerd-serve.ts: one workerd, the cron every
 * minute) on `port` and the state `persistTo`, with `vars` (`NAME:value`) over wrangler.toml's.
 * Under `npm test` it serves the run's one bundle; alone it bundles the Worker first (or serves
 * `script`, a bundle made before). Started in a process group of its own, so `stopServer` ends
 * workerd too.
 */
export function startServer(port: number, persistTo: string, vars: string[], opts: { stdio?: StdioOptions; script?: string } = {}): ChildProcess {
  const args = ["scripts/workerd-serve.ts", "--port", String(port), "--persist-to", persistTo, ...(opts.script ? ["--script", opts.script] : []), ...vars.flatMap((v) => ["--var", v])];
  return spawn(bin("tsx"), args, { env: quietEnv, stdio: opts.stdio ?? "ignore", detached: true });
}

/** Ends a server started by `startServer` (SIGKILL for a crash, SIGTERM for a clean stop). */
export function stopServer(server: ChildProcess | null, signal: NodeJS.Signals) {
  if (server?.pid) process.kill(-server.pid, signal);
}
