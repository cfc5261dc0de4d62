/**
 * Shared helpers for `npm run bench`: timing statistics, and a `wrangler dev` server on a
 * fresh local state that the benches start, use and always stop again.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg } from "node:os";
import { bin, buildApp, quietEnv, runQuietly } from "../../scripts/lib";
import { migrationsApply } from "../../scripts/migrations";

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

/** One line of a result table, kept for the final summary. */
export type Row = {
  name: string;
  stats: Stats;
  errors: number;
  note?: string;
  /**
   * Whether errors on this row make `npm run bench` exit non-zero (default true). Rows whose
   * errors are compared against a target (the trade benches) print PASS/FAIL instead.
   */
  gate?: boolean;
};

/** A bench group's result: timing rows plus verdict lines (target checks) for the summary. */
export type GroupResult = { rows: Row[]; verdicts: string[] };

export function statsTable(rows: Row[]): string {
  return table(
    ["", "n", "p50", "p95", "p99", "mean", "min", "max", "errors"],
    rows.map((r) => [r.name, String(r.stats.n), ms(r.stats.p50), ms(r.stats.p95), ms(r.stats.p99), ms(r.stats.mean), ms(r.stats.min), ms(r.stats.max), String(r.errors)]),
  );
}

/** "PASS"/"FAIL" with what was measured against what was wanted. */
export function verdict(ok: boolean, what: string): string {
  return `${ok ? "PASS" : "FAIL"}  ${what}`;
}

/** The machine's load, printed with the figures: other work on a 2-core box shows up in them. */
export function loadLine(): string {
  const [a, b, c] = loadavg();
  const n = cpus().length;
  const busy = a > n * 0.75 ? "  (busy: figures will be noisy)" : "";
  return `load average ${a.toFixed(2)} ${b.toFixed(2)} ${c.toFixed(2)} on ${n} cores${busy}`;
}

/**
 * CPU time (user + system, ms) of the process group a server leads: the tsx or wrangler
 * launcher and its workerd. Read from /proc (Linux), 0 elsewhere. Across a loop it says what
 * the server's work cost, whatever else the machine did meanwhile (another tenant's load slows
 * the rate but not this).
 */
export function groupCpu_ms(pgid: number): number {
  let ticks = 0;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return 0;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // the process ended meanwhile
    }
    // Fields after the command's closing parenthesis: state(3) ppid(4) pgrp(5) ... utime(14) stime(15).
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(f[2]) === pgid) ticks += Number(f[11]) + Number(f[12]);
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_S;
}
/** Linux's USER_HZ, 100 on every platform it runs on here. */
const CLOCK_TICKS_PER_S = 100;

/** Prints what the server logged besides requests (most frequent first), if anything. */
export function printServerLog(server: Server, since: number, label: string, max = 8): void {
  const counts = [...server.logSince(since)].sort((a, b) => b[1] - a[1]);
  if (!counts.length) return;
  console.log(`${label}: wrangler/workerd printed (besides the request log):`);
  for (const [line, n] of counts.slice(0, max)) console.log(`  x${n}  ${line}`);
  if (counts.length > max) console.log(`  ... and ${counts.length - max} other lines`);
}

export const sleep = (ms_: number) => new Promise<void>((r) => setTimeout(r, ms_));

/** Runs `fn` over `items` with at most `concurrency` at a time; results in input order. */
export async function pool<T, R>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}

/**
 * `concurrency` closed loops (each sends its next request when the previous one answered) for
 * `duration_ms`; no loop starts a request after the deadline, and the ones in flight are
 * awaited. Returns every latency, the error reasons and the wall time until the last answer.
 */
export async function closedLoop(
  concurrency: number,
  duration_ms: number,
  send: (worker: number, n: number) => Promise<TimedResponse>,
): Promise<{ ms: number[]; ok: number; errors: Map<string, number>; errorMs: Map<string, number[]>; errorAt: Map<string, number[]>; elapsed_ms: number }> {
  const times: number[] = [];
  const errors = new Map<string, number>();
  /** Per error reason: how long those requests took, and when (ms after the start) they were sent. */
  const errorMs = new Map<string, number[]>();
  const errorAt = new Map<string, number[]>();
  let ok = 0;
  const start = performance.now();
  const deadline = start + duration_ms;
  const loop = async (w: number) => {
    for (let n = 0; performance.now() < deadline; n++) {
      const sent = performance.now();
      try {
        const r = await send(w, n);
        times.push(r.ms);
        if (r.status === 200 && r.body?.code === 1) ok++;
        else {
          const reason = `HTTP ${r.status} ${(r.body?.data as { error?: string } | null)?.error ?? ""} ${r.body?.msg ?? `(no envelope) ${r.text ?? ""}`}`.replace(/\s+/g, " ").trim();
          errors.set(reason, (errors.get(reason) ?? 0) + 1);
          errorMs.set(reason, [...(errorMs.get(reason) ?? []), r.ms]);
          errorAt.set(reason, [...(errorAt.get(reason) ?? []), sent - start]);
        }
      } catch (err) {
        const reason = `network: ${String((err as Error)?.cause ?? err).slice(0, 120)}`;
        errors.set(reason, (errors.get(reason) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => loop(w)));
  return { ms: times, ok, errors, errorMs, errorAt, elapsed_ms: performance.now() - start };
}

// ---------------------------------------------------------------- server

/**
 * `restarts()`: how many times wrangler reloaded the Worker since it was ready. It watches the
 * sources it bundled, wrangler.toml and public/, so someone else editing or rebuilding the tree
 * restarts it mid-bench (requests in flight answer 503 "Your worker restarted mid-request",
 * WebSockets drop); the benches report it next to their figures.
 */
export type Server = {
  baseUrl: string;
  pid: number;
  stop: () => Promise<void>;
  restarts: () => number;
  /**
   * What wrangler/workerd printed since `since` other than the request log: errors and
   * warnings of the Worker, counted by message (digits blurred so alike lines count together).
   */
  logSince: (since: number) => Map<string, number>;
  /** A mark for `logSince`. */
  logMark: () => number;
};

const HOST = "127.0.0.1";

/** Every server still running, so an error or a signal anywhere can stop them all. */
const running = new Set<Server>();

export async function stopAllServers(): Promise<void> {
  await Promise.all([...running].map((s) => s.stop()));
}

/** Ports the benches may use (8787-8799 belong to dev, e2e and other engineers' servers). */
export const BENCH_PORTS = [8780, 8781, 8782, 8783, 8784, 8785] as const;

/** The first free port of `candidates` (BENCH_PORT, when set, is the only candidate). */
export async function freePort(candidates: readonly number[] = BENCH_PORTS): Promise<number> {
  const wanted = process.env.BENCH_PORT ? [Number(process.env.BENCH_PORT)] : candidates;
  for (const port of wanted) {
    try {
      await assertPortFree(port);
      return port;
    } catch {
      // taken: try the next one
    }
  }
  throw new Error(`no free port among ${wanted.join(", ")} on ${HOST}`);
}

/** The Remix build is the same for every state directory: once per bench run is enough. */
let built = false;

/**
 * A fresh state directory: remix build (once per run), D1 migrations and the demo seed, the
 * same steps as scripts/lib.ts `prepare`. `build: false` skips the build even the first time
 * (when the caller knows build/ is current).
 */
export async function prepareState(stateDir: string, opts: { build?: boolean } = {}): Promise<void> {
  rmSync(stateDir, { recursive: true, force: true });
  if (opts.build !== false && !built) {
    await buildApp({ quiet: true });
    built = true;
  }
  await runQuietly(bin("wrangler"), migrationsApply({ local: stateDir }));
  await runQuietly(bin("tsx"), ["scripts/seed.ts", "--persist-to", stateDir]);
}

/**
 * The Worker as it is now, frozen: bundled once (`wrangler deploy --dry-run`, the production
 * bundle, build/server included) with a copy of public/. `wrangler dev` watches what it
 * bundles and public/, so on a shared tree every edit or `remix build` by someone else would
 * restart the server mid-bench (WebSockets dropped, requests answered 503 "Your worker
 * restarted mid-request"); a snapshot started with `--no-bundle` only watches our copy.
 */
export type Snapshot = { script: string; assets: string };

export async function snapshotWorker(dir: string, entry?: string): Promise<Snapshot> {
  rmSync(dir, { recursive: true, force: true });
  await runQuietly(bin("wrangler"), ["deploy", "--dry-run", "--outdir", `${dir}/worker`, "--env=", ...(entry ? [entry] : [])]);
  const script = readdirSync(`${dir}/worker`).find((f) => f.endsWith(".js"));
  if (!script) throw new Error(`wrangler deploy --dry-run wrote no script into ${dir}/worker`);
  cpSync("public", `${dir}/public`, { recursive: true });
  return { script: `${dir}/worker/${script}`, assets: `${dir}/public` };
}

/**
 * Builds, migrates and seeds a fresh state directory with the same steps as scripts/lib.ts
 * `prepare` (unless `skipPrepare`), then starts `wrangler dev` on it with the same flags as
 * scripts/lib.ts `wranglerDev`, on a frozen snapshot of the Worker (see `Snapshot`), and
 * waits until `GET /api/health` answers.
 *
 * Unlike `wranglerDev`, the child gets its own process group (detached): wrangler starts
 * workerd as a grandchild, and signalling the group stops both, without touching any other
 * wrangler the developer has running.
 */
/** Which local server the benches start: `npm start`'s single workerd, or `wrangler dev`. */
export const SERVER_KIND: "workerd" | "wrangler" = process.env.BENCH_SERVER === "wrangler" ? "wrangler" : "workerd";

export async function startServer(opts: {
  port: number;
  stateDir: string;
  /** Skip the Remix build + migrations + seed (state dir kept as is). Default false. */
  skipPrepare?: boolean;
  /** The frozen Worker to run; default: a snapshot of wrangler.toml's `main` taken now. */
  snapshot?: Snapshot;
  ready_timeout_ms?: number;
  /** Extra `--var NAME:VALUE` bindings. D1_LIMITS is "enforce" unless given: benches run under production's D1 limits. */
  vars?: Record<string, string>;
}): Promise<Server> {
  const { port, stateDir } = opts;
  const baseUrl = `http://${HOST}:${port}`;
  // Checked before anything else: if another server holds the port we would measure that one.
  // A few seconds of patience: a workerd we just stopped on this port may still be exiting.
  for (let waited = 0; ; waited += 250) {
    try {
      await assertPortFree(port);
      break;
    } catch (err) {
      if (waited >= 5_000) throw err;
      await sleep(250);
    }
  }

  if (!opts.skipPrepare) await prepareState(stateDir);
  const snapshot = opts.snapshot ?? (await snapshotWorker(`${stateDir}.snapshot`));

  const vars = Object.entries({ APP_ENV: "local", D1_LIMITS: "enforce", ...opts.vars }).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  // The server `npm start` runs (one workerd, scripts/workerd-serve.ts), or with
  // BENCH_SERVER=wrangler the `wrangler dev` it replaced, for comparison.
  const [cmd, args] =
    SERVER_KIND === "wrangler"
      ? [bin("wrangler"), ["dev", snapshot.script, "--no-bundle", "--assets", snapshot.assets, "--ip", HOST, "--port", String(port), "--persist-to", stateDir, ...vars]]
      : [bin("tsx"), ["scripts/workerd-serve.ts", "--script", snapshot.script, "--assets", snapshot.assets, "--port", String(port), "--persist-to", stateDir, ...vars]];
  const child = spawn(cmd, args, { env: quietEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  if (child.pid === undefined) throw new Error(`${SERVER_KIND}: could not spawn`);
  const pid = child.pid;

  // Wrangler's output is kept (last lines only) and shown only if something goes wrong:
  // its request log would otherwise drown the figures. Reading the pipes also keeps them
  // from filling up and blocking the child.
  const tail: string[] = [];
  let reloads = 0;
  let readyReloads = 0;
  const notes: string[] = [];
  const keep = (chunk: Buffer) => {
    const text = chunk.toString();
    reloads += text.split("Reloading local server").length - 1;
    for (const line of text.split("\n")) {
      // eslint-disable-next-line no-control-regex
      const plain = line.replace(/\x1b\[[0-9;]*m/g, "").trim();
      // The request log ("[wrangler:info] GET /api/health 200 OK (3ms)") is not news.
      if (!plain || /^\[wrangler:info\] [A-Z]+ \S+ \d{3}\b/.test(plain)) continue;
      if (notes.length < 5_000) notes.push(plain.slice(0, 200));
    }
    tail.push(...text.split("\n").filter(Boolean));
    if (tail.length > 60) tail.splice(0, tail.length - 60);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const server: Server = {
    baseUrl,
    pid,
    stop: () => stopGroup(child, exited, () => running.delete(server)),
    restarts: () => reloads - readyReloads,
    logMark: () => notes.length,
    logSince: (since) => {
      const counts = new Map<string, number>();
      for (const line of notes.slice(since)) {
        const key = line.replace(/\d+/g, "#");
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      return counts;
    },
  };
  running.add(server);

  try {
    await waitForHealth(baseUrl, child, opts.ready_timeout_ms ?? 60_000);
    readyReloads = reloads;
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

/** `text`: the start of a body that is not a JSON envelope (an error page, a proxy message). */
export type TimedResponse = { ms: number; status: number; body: Envelope | null; text?: string };

/** One request, timed from send to the fully read body (what a client waits for). */
export async function timedRequest(url: string, init: RequestInit = {}, timeout_ms = 15_000): Promise<TimedResponse> {
  const start = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeout_ms) });
  const text = await res.text();
  const elapsed = performance.now() - start;
  let body: Envelope | null = null;
  try {
    body = JSON.parse(text) as Envelope;
  } catch {
    return { ms: elapsed, status: res.status, body: null, text: text.slice(0, 160) };
  }
  return { ms: elapsed, status: res.status, body };
}

/**
 * The address a simulated client sends as `CF-Connecting-IP` (kept by the local runtime when
 * present): each simulated person its own, from 198.18.0.0/15, the range set aside for
 * benchmarks. Sign-in and registration are limited per address (30 a minute), as from the
 * real internet; a bench logging in hundreds of times from one address would measure refusals.
 */
export function clientIp(n: number): { "cf-connecting-ip": string } {
  return { "cf-connecting-ip": `198.18.${Math.floor(n / 250) % 250}.${(n % 250) + 1}` };
}

export function postJson(url: string, data: unknown, headers: Record<string, string> = {}, timeout_ms = 15_000) {
  return timedRequest(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(data) }, timeout_ms);
}

/** `data` of a `{code: 1}` answer, or an error naming the request and what came back. */
export function dataOf<T>(what: string, r: TimedResponse): T {
  if (r.status !== 200 || r.body?.code !== 1) throw new Error(`${what}: HTTP ${r.status} ${r.body ? JSON.stringify(r.body) : (r.text ?? "")}`);
  return r.body.data as T;
}
