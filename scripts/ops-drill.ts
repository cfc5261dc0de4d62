/**
 * The backup and restore drill: `npm run ops:drill [-- --port 8773 --restored-port 8776 --keep]`
 * (npm test runs it). What a production restore does, on this machine, end to end:
 *
 *   1. State A: migrated and seeded, served by `wrangler dev` with the log's keys as secrets
 *      (as production holds them: a D1 restore never touches them). Real API traffic: sign-ins
 *      of the demo user, an upload, a deposit claim credited by two operators (four eyes), an
 *      order placed and settled, a bound address and a withdrawal request; then a signed
 *      checkpoint covering it. The server is stopped.
 *   2. `wrangler d1 export DB --local` of A to one SQL file (tables and rows, then indexes and
 *      triggers, so no trigger fires on the way back in).
 *   3. State B, empty: `wrangler d1 execute DB --local --file` of that file.
 *   4. Checks on B, each a failure when it does not hold: `ledger:check`; every table's row
 *      count and the hash of its rows in primary-key order equal to A's; no pending migration;
 *      then B served (its R2 buckets copied from A, which a D1 restore leaves as they were) and
 *      `npm run verify`, the key pinned and the demo user's transfers checked, passing.
 *
 * It prints the figures (tables, rows, seconds) and exits 1 naming what failed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import { createHash, randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { getPlatformProxy } from "wrangler";
import type { D1Database } from "@cloudflare/workers-types";
import { bin, PLATFORM_CONFIG, prepare, quietEnv, run, stateDir } from "./lib";
import { migrationsList } from "./migrations";
import { DEMO } from "./seed-demo";
import { demoOperatorCode, demoOperatorLogin, type DemoOperator } from "./demo-operators";
import { publicKeyOf, verifierKey } from "../worker/domain/transparency/note";
import { b64encode } from "../worker/domain/transparency/verify";

const { values } = parseArgs({ options: { port: { type: "string", default: "8773" }, "restored-port": { type: "string", default: "8776" }, keep: { type: "boolean", default: false } } });
const ROOT = stateDir("drill");
// `wrangler d1 export` has no --persist-to: it reads the state beside its config file, so A's
// state is the default `.wrangler/state` of a one-binding config of its own.
const EXPORT_CONFIG = `${ROOT}/export/wrangler.toml`;
const A = `${ROOT}/export/.wrangler/state`;
const B = `${ROOT}/b`;
const DUMP = `${ROOT}/export.sql`;
const started_ms = Date.now();
const seconds = () => ((Date.now() - started_ms) / 1000).toFixed(1);
const step = (what: string) => console.log(`drill ${seconds().padStart(5)} s  ${what}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The log's keys as secrets, the same for A and B: in production they are Worker secrets, which
// a restore of D1 does not touch. Locally they would otherwise live in the sequencer's storage.
const signing_seed = randomBytes(32);
const ORIGIN = "localhost/proofline";
const LOG_VARS = [`LOG_SIGNING_KEY:${b64encode(signing_seed)}`, `LOG_PSEUDONYM_KEY:${b64encode(randomBytes(32))}`];
const PINNED_KEY = verifierKey(ORIGIN, publicKeyOf(new Uint8Array(signing_seed)));

// ---------------------------------------------------------------- a server on one state

let server: ChildProcess | null = null;

/** `wrangler dev` on a state directory (as scripts/lib.ts wranglerDev), its output in a file. */
async function startServer(persistTo: string, port: string) {
  const out = openSync(`${ROOT}/${persistTo === A ? "a" : "b"}.log`, "a");
  server = spawn(bin("wrangler"), ["dev", "--ip", "127.0.0.1", "--port", port, "--persist-to", persistTo, "--var", "APP_ENV:local", "--var", "D1_LIMITS:enforce", "--var", "TEST_CLOCK:1", ...LOG_VARS.flatMap((v) => ["--var", v])], {
    env: quietEnv,
    detached: true, // its own process group: stopping it takes workerd with it
    stdio: ["ignore", out, out],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i += 1) {
    if (await fetch(`${base}/api/health`).then((r) => r.ok).catch(() => false)) return base;
    if (server.exitCode !== null) break;
    await sleep(100);
  }
  throw new Error(`wrangler dev on ${persistTo} did not come up (see its log in ${ROOT})`);
}

async function stopServer() {
  const s = server;
  if (!s || s.exitCode !== null) return;
  const exited = new Promise((r) => s.once("exit", r));
  process.kill(-s.pid!, "SIGTERM");
  const timer = setTimeout(() => s.exitCode === null && process.kill(-s.pid!, "SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
  server = null;
}
process.on("exit", () => {
  if (server?.pid && server.exitCode === null) process.kill(-server.pid, "SIGKILL");
});

// ---------------------------------------------------------------- traffic through the API

type Answer = { code: number; msg: string; data: any };

function client(base: string) {
  return async function api(path: string, body: unknown, opts: { token?: string; key?: string; multipart?: FormData } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (opts.token) headers.token = opts.token;
    if (opts.key) headers["idempotency-key"] = opts.key;
    if (!opts.multipart) headers["content-type"] = "application/json";
    const res = await fetch(base + path, { method: "POST", headers, body: opts.multipart ?? JSON.stringify(body), signal: AbortSignal.timeout(20_000) });
    if (res.status >= 500) throw new Error(`${path}: HTTP ${res.status}`);
    return (await res.json()) as Answer;
  };
}

function ok(r: Answer, what: string) {
  if (r.code !== 1) throw new Error(`${what}: ${r.msg} ${JSON.stringify(r.data)}`);
  return r.data;
}

const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAABgAAAAQCAIAAACDRijCAAAAUklEQVR4nO3MIQJAUBQAwX+wPeo2QRAEQRAEQRAEQRAEQRAEQRA4hPrmAJPwxQdvvPDEA3fccMUFZ5xwxAF77LDFBmussMQCc8xSRBFFFNG/6AMk732fPYXb4wAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));

/** The traffic: answers the demo user's token (its session is restored with D1, so verify can use it on B). */
async function traffic(base: string): Promise<{ token: string; requests: number }> {
  const api = client(base);
  let requests = 0;
  const call: typeof api = (...a) => ((requests += 1), api(...a));
  // Sign-ins: each leaves a session and a line of sign-in history.
  let token = "";
  for (let i = 0; i < 3; i += 1) token = ok(await call("/api/user/login", DEMO.user), "sign-in").userinfo.token;
  // An order first: its 30 s run while the rest happens.
  const markets = ok(await call("/api/index/product_list", {}), "markets") as { id: number; symbol: string }[];
  const btc = markets.find((m) => /BTC/.test(m.symbol)) ?? markets[0];
  let order: Answer | null = null;
  for (let i = 0; i < 50 && order?.code !== 1; i += 1) {
    const quote = ok(await call("/api/index/product", { id: btc.id }), "quote").price as string;
    order = await call("/api/order/addorder", { product_id: btc.id, direction: "up", amount: "10", seconds: 30, quote_price: quote, client_order_id: `drill-${started_ms}` }, { token });
    if (order.code !== 1) await sleep(200); // the hub's first ticks, or a moved quote: ask again
  }
  ok(order!, "order");
  const placed_ms = Date.now();
  // An upload, the screenshot of a deposit claim at the four-eyes threshold: two operators credit it.
  const fd = new FormData();
  fd.set("file", new File([PNG], "shot.png", { type: "image/png" }));
  const image = ok(await call("/api/common/upload", null, { token, multipart: fd }), "upload").url as string;
  const channels = ok(await call("/api/index/recharge_way", {}), "channels") as { id: number; chain: string }[];
  const trc20 = channels.find((c) => c.chain === "TRC20")!;
  const deposit = ok(await call("/api/user/recharge", { channel_id: trc20.id, amount: "10000", tx_hash: `0xd${started_ms}`, image }, { token, key: `drill-dep-${started_ms}` }), "deposit claim");
  for (const who of ["operator", "auditor"] as DemoOperator[]) {
    const op = ok(await call("/api/admin/login", await demoOperatorLogin(who)), `${who} sign-in`).token as string;
    let r = await call(`/api/admin/deposits/${deposit.id}/approve`, { amount: "10000", tx_ref: `drill-${deposit.id}` }, { token: op });
    if (r.data?.error === "step_up_required") {
      ok(await call("/api/admin/step_up", { code: await demoOperatorCode(who) }, { token: op }), `${who} step-up`);
      r = await call(`/api/admin/deposits/${deposit.id}/approve`, { amount: "10000", tx_ref: `drill-${deposit.id}` }, { token: op });
    }
    ok(r, `${who} credits the deposit`);
  }
  // A bound address (it opens a day later: the test clock moves) and a withdrawal request.
  const { password } = DEMO.user;
  const wallet = ok(await call("/api/user/add_wallet", { chain: "TRC20", address: "TCvAsN4KpsZMAYTpHeEYgt1YuoBPF4HT9S", password }, { token }), "bind address");
  ok(await call("/api/test/clock", { advance_ms: 25 * 3600_000 }), "clock");
  ok(await call("/api/user/withdraw", { amount: "20", wallet_id: wallet.id, password }, { token, key: `drill-w-${started_ms}` }), "withdrawal request");
  // The order settles at its delivery (the hub's settlement loop).
  await sleep(Math.max(0, placed_ms + 30_500 - Date.now()));
  for (let i = 0; ; i += 1) {
    if (Number(ok(await call("/api/order/hold", {}, { token }), "open orders").total ?? 0) === 0) break;
    if (i > 60) throw new Error("the order did not settle within 30 s of its delivery");
    await sleep(500);
  }
  return { token, requests };
}

/** Waits for a signed checkpoint that stops growing: the sequencer has drained the inbox. */
async function settledCheckpoint(base: string): Promise<number> {
  let last = -1;
  let same = 0;
  for (let i = 0; i < 100; i += 1) {
    const r = (await (await fetch(`${base}/api/proof/checkpoint`)).json()) as Answer;
    const size = r.code === 1 ? Number(r.data.tree_size) : 0;
    same = size > 0 && size === last ? same + 1 : 0;
    if (same >= 3) return size;
    last = size;
    await sleep(400);
  }
  throw new Error(`no stable signed checkpoint (last size ${last})`);
}

// ---------------------------------------------------------------- reading both states

type TableFigure = { rows: number; hash: string };

/**
 * `tableFigures`, read once more from a fresh proxy when miniflare's synchronous proxy lost a
 * reply: its `SynchronousFetcher` wakes from `Atomics.wait` and asserts that the reply it finds
 * is the one it asked for, and once, in a clean-clone run beside two busy lanes, there was none
 * yet. The drill's own checks are not retried.
 */
async function tableFiguresOf(persistTo: string): Promise<Map<string, TableFigure>> {
  try {
    return await tableFigures(persistTo);
  } catch (err) {
    if (!(err instanceof Error && (err as { code?: string }).code === "ERR_ASSERTION" && /SynchronousFetcher/.test(err.stack ?? ""))) throw err;
    console.log("  miniflare's proxy lost a reply (its SynchronousFetcher's assertion); reading the tables again");
    return tableFigures(persistTo);
  }
}

/** Every table of a local D1 state: its row count and a hash of its rows in primary-key order. */
async function tableFigures(persistTo: string): Promise<Map<string, TableFigure>> {
  const { env, dispose } = await getPlatformProxy<{ DB: D1Database }>({ configPath: PLATFORM_CONFIG, persist: { path: `${persistTo}/v3` } });
  try {
    const tables = (await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name").all<{ name: string }>()).results.map((t) => t.name);
    const out = new Map<string, TableFigure>();
    for (const name of tables) {
      const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
      const columns = (await env.DB.prepare(`SELECT name, pk FROM pragma_table_info(?)`).bind(name).all<{ name: string; pk: number }>()).results;
      // Primary key first, then every column: a total order even for tables without a key.
      const keyed = [...columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk), ...columns.filter((c) => c.pk === 0)];
      const rows = (await env.DB.prepare(`SELECT ${columns.map((c) => q(c.name)).join(", ")} FROM ${q(name)} ORDER BY ${keyed.map((c) => q(c.name)).join(", ")}`).raw()) as unknown[][];
      const hash = createHash("sha256");
      for (const row of rows) hash.update(JSON.stringify(row.map((v) => (v instanceof ArrayBuffer || ArrayBuffer.isView(v) ? `x'${Buffer.from(v as ArrayBuffer).toString("hex")}'` : v))) + "\n");
      out.set(name, { rows: rows.length, hash: hash.digest("hex") });
    }
    return out;
  } finally {
    await dispose();
  }
}

/** Runs a command and answers its output (stdout and stderr together); rejects on a non-zero exit. */
function capture(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: quietEnv, stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (d) => (text += d));
    child.stderr.on("data", (d) => (text += d));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(text) : reject(new Error(`${cmd} ${args.join(" ")} exited with ${code}:\n${text}`))));
  });
}

/**
 * `wrangler d1 execute --local --file DUMP` into B. Wrangler's local path runs the file as one
 * batch and asserts that the batch answered a list: once, on a crowded machine (a clean-clone
 * test run), it answered nothing ("false == true") and the drill failed. Only that answer is
 * tried again, once, into a B emptied first (the batch is one transaction, but nothing is
 * assumed); any SQL error still fails the drill.
 */
async function importDump(): Promise<string> {
  const args = ["d1", "execute", "DB", "--local", "--persist-to", B, "--file", DUMP, "--yes"];
  try {
    return await capture(bin("wrangler"), args);
  } catch (err) {
    if (!/false == true/.test((err as Error).message)) throw err;
    step("wrangler's local import answered no results; B emptied and the import run again");
    rmSync(B, { recursive: true, force: true });
    return capture(bin("wrangler"), args);
  }
}

// ---------------------------------------------------------------- the drill

const failures: string[] = [];
const check = (okay: boolean, what: string) => {
  console.log(`${okay ? "ok  " : "FAIL"} ${what}`);
  if (!okay) failures.push(what);
};

rmSync(ROOT, { recursive: true, force: true });
mkdirSync(ROOT, { recursive: true });
mkdirSync(B, { recursive: true });
mkdirSync(A, { recursive: true });
writeFileSync(EXPORT_CONFIG, readFileSync(PLATFORM_CONFIG, "utf8").replace('migrations_dir = "../migrations"', `migrations_dir = "${relative(dirname(EXPORT_CONFIG), "migrations")}"`));
step("state A: migrate and seed");
await prepare(A, { build: process.env.PROOFLINE_BUILT !== "1" });
let token = "";
let requests = 0;
let tree_size = 0;
try {
  const base = await startServer(A, values.port!);
  step(`state A served at ${base}: traffic`);
  ({ token, requests } = await traffic(base));
  tree_size = await settledCheckpoint(base);
  step(`${requests} API requests; the log signed a checkpoint of ${tree_size} leaves`);
} finally {
  await stopServer();
}

step("export A");
await capture(bin("wrangler"), ["d1", "export", "DB", "--local", "-c", EXPORT_CONFIG, "--output", DUMP]);
const dump = readFileSync(DUMP, "utf8");
const firstTrigger = dump.search(/^CREATE TRIGGER/m);
const lastInsert = dump.lastIndexOf("\nINSERT INTO");
check(firstTrigger === -1 || firstTrigger > lastInsert, "the export writes every row before the first trigger (no trigger fires on import)");
step(`import into the empty state B (${(statSync(DUMP).size / 1024).toFixed(0)} KiB of SQL), A's tables read meanwhile`);
// A is read while B is written (two files). B's readers take turns: a local D1 is one SQLite
// file that workerd opens exclusively.
const [a] = await Promise.all([tableFiguresOf(A), importDump()]);
step("on B: every table against A's, ledger:check, pending migrations");
const b = await tableFiguresOf(B);
const ledgerOk = await capture(bin("tsx"), ["scripts/ledger-check.ts", "--persist-to", B]).then(
  (out) => (console.log(out.trim().replace(/^/gm, "  ")), true),
  (err: Error) => (console.log(err.message), false),
);
const pending = await capture(bin("wrangler"), migrationsList({ local: B })).catch((err: Error) => err.message);
const names = [...new Set([...a.keys(), ...b.keys()])].sort();
const differ = names.filter((n) => a.get(n)?.rows !== b.get(n)?.rows || a.get(n)?.hash !== b.get(n)?.hash);
const rowsA = [...a.values()].reduce((s, t) => s + t.rows, 0);
for (const n of differ) console.log(`  ${n}: A ${a.get(n)?.rows ?? "absent"} rows ${a.get(n)?.hash.slice(0, 12) ?? ""}, B ${b.get(n)?.rows ?? "absent"} rows ${b.get(n)?.hash.slice(0, 12) ?? ""}`);
check(differ.length === 0 && names.length > 0, `${names.length} tables, ${rowsA} rows: counts and ordered-row hashes equal in A and B${differ.length ? ` (${differ.length} differ)` : ""}`);
const leaves = a.get("log_leaves")?.rows ?? 0;
check(leaves >= tree_size && tree_size > 0, `the log's ${leaves} leaves came back with D1 (checkpoint of ${tree_size})`);
check(ledgerOk, "ledger:check passes on B");
check(/No migrations to apply/i.test(pending), "no pending migration on B");

step("serve B (R2 as A left it) and verify the log");
cpSync(`${A}/v3/r2`, `${B}/v3/r2`, { recursive: true });
try {
  const base = await startServer(B, values["restored-port"]!);
  await run(bin("tsx"), ["scripts/verify.ts", "--base", base, "--pin", PINNED_KEY, "--token", token]).then(
    () => check(true, "verify passes against the restored app, key pinned, the demo user's transfers included"),
    () => check(false, "verify passes against the restored app, key pinned, the demo user's transfers included"),
  );
} finally {
  await stopServer();
}

if (!values.keep) rmSync(ROOT, { recursive: true, force: true });
console.log(`\nops:drill: ${names.length} tables, ${rowsA} rows, ${leaves} log leaves, ${requests} requests, ${seconds()} s: ${failures.length ? `${failures.length} FAILED\n  ${failures.join("\n  ")}` : "restore verified"}`);
process.exit(failures.length ? 1 : 0);
