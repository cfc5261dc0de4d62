/**
 * Shared helpers for `npm run bench`: timing statistics, and a `wrangler dev` server on a
 * fresh local state that the benches start, use and always stop again.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { createServer } from "node:net";
import { bin, prepare, quietEnv } from "../../scripts/lib";

// ---------------------------------------------------------------- statistics

export type Stats = { n: number; mean: number; p50: number; p95: number; p99: number; min: number; max: number };

/** Nearest-rank percentile of an ascending list: always one of the measured values, never interpolated. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function summarize(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, x) => sum + x, 0) / (sorted.length || 1);
  return {
    n: sorted.length,
    mean,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    min: sorted[0] ?? NaN,
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

export const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(x < 10 ? 2 : 1) : "n/a");

/** Runs `fn` once and returns its wall time in milliseconds (performance.now: monotonic, sub-ms). */
export async function timed<T>(fn: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/** A plain fixed-width table, so the summary reads the same in a terminal and in a CI log. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** Rejects after `limit_ms`, so no single step can eat the whole run's time budget. */
export async function withTimeout<T>(what: string, limit_ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${limit_ms} ms`)), limit_ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------- server

export type Server = { baseUrl: string; pid: number; stop: () => Promise<void> };

const HOST = "127.0.0.1";

/** Every server still running, so an error or a signal anywhere can stop them all. */
const running = new Set<Server>();

export async function stopAllServers(): Promise<void> {
  await Promise.all([...running].map((s) => s.stop()));
}

/**
 * Builds, migrates and seeds a fresh state directory with the same `prepare` as
 * scripts/serve-e2e.ts, then starts `wrangler dev` on it with the same flags as
 * scripts/lib.ts `wranglerDev` and waits until `GET /api/health` answers.
 *
 * Unlike `wranglerDev`, the child gets its own process group (detached): wrangler starts
 * workerd as a grandchild, and signalling the group stops both, without touching any other
 * wrangler the developer has running.
 */
export async function startServer(opts: {
  port: number;
  stateDir: string;
  /** Skip the Remix build + migrations + seed (state dir kept as is). Default false. */
  skipPrepare?: boolean;
  ready_timeout_ms?: number;
}): Promise<Server> {
  const { port, stateDir } = opts;
  const baseUrl = `http://${HOST}:${port}`;
  // Checked before anything else: if another server holds the port we would measure that one.
  await assertPortFree(port);

  if (!opts.skipPrepare) {
    rmSync(stateDir, { recursive: true, force: true });
    await prepare(stateDir);
  }

  const child = spawn(
    bin("wrangler"),
    ["dev", "--ip", HOST, "--port", String(port), "--persist-to", stateDir, "--var", "APP_ENV:local"],
    { env: quietEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  if (child.pid === undefined) throw new Error("wrangler dev: could not spawn");
  const pid = child.pid;

  // Wrangler's output is kept (last lines only) and shown only if something goes wrong:
  // its request log would otherwise drown the figures. Reading the pipes also keeps them
  // from filling up and blocking the child.
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    tail.push(...chunk.toString().split("\n").filter(Boolean));
    if (tail.length > 60) tail.splice(0, tail.length - 60);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const server: Server = { baseUrl, pid, stop: () => stopGroup(child, exited, () => running.delete(server)) };
  running.add(server);

  try {
    await waitForHealth(baseUrl, child, opts.ready_timeout_ms ?? 60_000);
  } catch (err) {
    console.error(`--- last lines of wrangler dev output ---\n${tail.join("\n")}\n---`);
    await server.stop();
    throw err;
  }
  return server;
}

async function waitForHealth(baseUrl: string, child: ChildProcess, timeout_ms: number) {
  const deadline = Date.now() + timeout_ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`wrangler dev exited early (${child.exitCode ?? child.signalCode})`);
    }
    try {
      const res = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(2_000) });
      if (res.ok && ((await res.json()) as { code?: number }).code === 1) return;
    } catch {
      // Not listening yet: retry below.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`wrangler dev: ${baseUrl}/api/health did not answer within ${timeout_ms} ms`);
}

/** SIGTERM to the whole group, SIGKILL if it has not gone after 5 s. Safe to call twice. */
async function stopGroup(child: ChildProcess, exited: Promise<void>, forget: () => void) {
  forget();
  if (child.exitCode !== null || child.signalCode !== null) {
    // wrangler itself is gone; make sure no workerd of its group is left behind.
    signalGroup(child.pid!, "SIGKILL");
    return;
  }
  signalGroup(child.pid!, "SIGTERM");
  const gone = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5_000))]);
  // Even after a clean wrangler exit, kill what may remain of the group (workerd).
  signalGroup(child.pid!, "SIGKILL");
  if (!gone) await Promise.race([exited, new Promise((r) => setTimeout(r, 2_000))]);
}

function signalGroup(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pid, signal); // negative pid: the process group this child leads
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Last resort on process exit (synchronous, so only a kill): no server outlives the bench. */
process.on("exit", () => {
  for (const s of running) signalGroup(s.pid, "SIGKILL");
});

function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", () => reject(new Error(`port ${port} on ${HOST} is in use; pick another with BENCH_PORT`)));
    probe.listen(port, HOST, () => probe.close(() => resolve()));
  });
}

// ---------------------------------------------------------------- HTTP

export type Envelope = { code: 0 | 1; msg: string; data: unknown };

export type TimedResponse = { ms: number; status: number; body: Envelope | null };

/** One request, timed from send to the fully read body (what a client waits for). */
export async function timedRequest(url: string, init: RequestInit = {}): Promise<TimedResponse> {
  const start = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  const elapsed = performance.now() - start;
  let body: Envelope | null = null;
  try {
    body = JSON.parse(text) as Envelope;
  } catch {
    body = null;
  }
  return { ms: elapsed, status: res.status, body };
}

export function postJson(url: string, data: unknown) {
  return timedRequest(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(data) });
}
