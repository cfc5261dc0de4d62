/**
 * `npm run verify -- --base URL [--token T] [--pin KEY]`: checks a Proofline server's
 * transparency log without trusting it. It uses only worker/domain/transparency/verify.ts (the
 * same code the browser runs, which imports only @noble) and fetch:
 *
 *   - every published checkpoint: signed by the log's key (or the pinned one), of the log's
 *     origin, sizes growing;
 *   - each consecutive pair of checkpoints: consistent (the later one extends the earlier);
 *   - the whole log, read from its public tiles: every entry, hashed, gives the latest
 *     checkpoint's root;
 *   - the simulated feed: every revealed hourly seed matches the commitment logged before its
 *     hour, and every tick of every simulated order is that hour's walk (auditSimulation);
 *   - with --token: every one of that user's transfers is included in the latest checkpoint.
 *
 * One line per check, a summary, and exit code 1 on any failure.
 */
import { parseArgs } from "node:util";
import { auditSimulation, b64decode, decodeEntryBundle, entriesPath, equalBytes, leafHash, openNote, parseCheckpoint, rootOf, TILE_WIDTH, verifyConsistency, verifyInclusion } from "../worker/domain/transparency/verify";

const { values } = parseArgs({ options: { base: { type: "string" }, token: { type: "string" }, pin: { type: "string" } } });
if (!values.base) {
  console.error("usage: npm run verify -- --base http://127.0.0.1:8787 [--token T] [--pin <verifier key>]");
  process.exit(2);
}
const base = values.base.replace(/\/$/, "");
let failures = 0;
let checks = 0;
const say = (ok: boolean, line: string) => {
  checks += 1;
  if (!ok) failures += 1;
  console.log(`${ok ? "ok  " : "FAIL"} ${line}`);
};

type Envelope<T> = { code: number; msg: string; data: T };
async function api<T>(path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (values.token) headers.token = values.token;
  const res = await fetch(base + path, body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) });
  const json = (await res.json()) as Envelope<T>;
  if (json.code !== 1) throw new Error(`${path}: ${json.msg}`);
  return json.data;
}

const { verifier_key, origin } = await api<{ verifier_key: string; origin: string }>("/api/proof/key");
say(!values.pin || values.pin === verifier_key, `verifier key ${verifier_key}${values.pin ? " is the pinned one" : " (pin it with --pin to detect a key change)"}`);
const key = values.pin ?? verifier_key;

// Every checkpoint, oldest first.
const checkpoints: { tree_size: number; root: Uint8Array }[] = [];
for (let page = 1; ; page += 1) {
  const { list } = await api<{ list: { tree_size: number; note: string }[] }>(`/api/proof/checkpoints?page_no=${page}&row=100`);
  if (list.length === 0) break;
  for (const k of list) {
    const opened = openNote(k.note, key);
    const cp = opened.status === "ok" ? parseCheckpoint(opened.body) : null;
    const ok = cp !== null && cp.origin === origin && cp.tree_size === k.tree_size;
    say(ok, `checkpoint of size ${k.tree_size}: ${opened.status === "ok" ? (ok ? "signature holds" : "body does not match") : opened.status}`);
    if (cp) checkpoints.push({ tree_size: cp.tree_size, root: cp.root_hash });
  }
}
for (let i = 1; i < checkpoints.length; i += 1) {
  const [a, b] = [checkpoints[i - 1], checkpoints[i]];
  if (b.tree_size <= a.tree_size) {
    say(false, `checkpoint sizes go ${a.tree_size} -> ${b.tree_size}: a log only grows`);
    continue;
  }
  const { proof } = await api<{ proof: string[] }>(`/api/proof/consistency?first=${a.tree_size}&second=${b.tree_size}`);
  say(verifyConsistency(a.tree_size, b.tree_size, proof.map(b64decode), a.root, b.root), `${a.tree_size} -> ${b.tree_size}: consistent`);
}

// With a token: the user's own transfers.
if (values.token) {
  let seen = 0;
  for (let page = 1; ; page += 1) {
    const s = await api<{ checkpoint: string; tree_size: number; list: { transfer_id: number; leaf: string; leaf_index: number; proof: string[] }[] }>("/api/proof/statement", { page_no: page, row: 100 });
    if (s.list.length === 0) break;
    const opened = openNote(s.checkpoint, key);
    const cp = opened.status === "ok" ? parseCheckpoint(opened.body) : null;
    if (!cp) {
      say(false, `statement checkpoint: ${opened.status}`);
      break;
    }
    for (const item of s.list) {
      seen += 1;
      say(verifyInclusion(leafHash(item.leaf), item.leaf_index, cp.tree_size, item.proof.map(b64decode), cp.root_hash), `transfer ${item.transfer_id} is leaf ${item.leaf_index} of ${cp.tree_size}`);
    }
  }
  console.log(`${seen} of your transfers checked`);
}

// The whole log from its public entry bundles, hashed to the latest checkpoint's root; then the
// simulated feed's hours and every simulated order's ticks.
const latest = checkpoints[checkpoints.length - 1];
if (latest) {
  const entries: Uint8Array[] = [];
  let readable = true;
  for (let index = 0; index * TILE_WIDTH < latest.tree_size; index += 1) {
    const width = Math.min(TILE_WIDTH, latest.tree_size - index * TILE_WIDTH);
    const res = await fetch(`${base}/api/proof/${entriesPath(index, width)}`);
    const bundle = res.ok ? decodeEntryBundle(new Uint8Array(await res.arrayBuffer())) : [];
    if (bundle.length !== width) {
      say(false, `entry bundle ${entriesPath(index, width)}: ${res.ok ? `${bundle.length} entries, ${width} expected` : `HTTP ${res.status}`}`);
      readable = false;
      break;
    }
    entries.push(...bundle);
  }
  if (readable) {
    say(equalBytes(rootOf(entries.map((e) => leafHash(e))), latest.root), `all ${latest.tree_size} entries of the public tiles hash to the root of checkpoint ${latest.tree_size}`);
    for (const f of auditSimulation(entries.map((e) => new TextDecoder().decode(e)), Date.now())) say(f.ok, f.line);
  }
}

console.log(`\n${checks} checks, ${failures} failed: ${failures ? "DO NOT TRUST this log" : `the log ${origin} is consistent${values.token ? " and holds your transfers" : ""}`}`);
process.exit(failures ? 1 : 0);
