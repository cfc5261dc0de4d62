/**
 * What `npm run verify` checks, as one function over a fetch (the CLI passes the network's, the
 * tests the Worker's own). It uses only worker/domain/transparency/verify.ts (the same code the
 * browser runs, which imports only @noble):
 *
 *   - every published checkpoint: signed by the key trusted at that point, of the log's origin,
 *     sizes growing; the first key is the pinned one (else the log's first), and a new key is
 *     trusted only from a handover checkpoint signed by the old key and the new (decision 136),
 *     which must lead to the key the log signs with now;
 *   - witnesses, when the log names any (or --witness pins them): the checkpoint served as the
 *     latest carries valid cosignatures of at least the quorum, and which witnesses are missing
 *     is said by name (decision 108); the whole-log check below stands on the newest checkpoint
 *     that has its quorum;
 *   - each consecutive pair of checkpoints: consistent (the later one extends the earlier);
 *   - the whole log, read from its public tiles: every entry, hashed, gives that checkpoint's root;
 *   - the simulated feed: every revealed hourly seed matches the commitment logged before its
 *     hour, and every tick of every simulated order is that hour's walk (auditSimulation);
 *   - with a token: every one of that user's transfers is included in the latest checkpoint.
 */
import {
  auditSimulation,
  b64decode,
  checkWitnesses,
  decodeEntryBundle,
  entriesPath,
  equalBytes,
  followHandover,
  leafHash,
  openNote,
  parseCheckpoint,
  rootOf,
  TILE_WIDTH,
  verifyConsistency,
  verifyInclusion,
  type WitnessCheck,
} from "../worker/domain/transparency/verify";

export type VerifyOptions = {
  /** Fetches a path of the server ("/api/proof/key"). */
  fetch: (path: string, init?: RequestInit) => Promise<Response>;
  token?: string;
  /** The log's verifier key, pinned. */
  pin?: string;
  /** Witness verifier keys, pinned (otherwise the ones the log names). */
  witnesses?: string[];
  /** The quorum, pinned (otherwise the log's; with pinned witnesses and none given, all of them). */
  quorum?: number;
  /** One line per check. */
  say: (ok: boolean, line: string) => void;
  /** Plain information. */
  log?: (line: string) => void;
  now_ms?: number;
};

type Envelope<T> = { code: number; msg: string; data: T };

/** Says what a witness check found, in one line. */
export function witnessLine(size: number, w: WitnessCheck): string {
  if (w.status === "bad_format") return `checkpoint of size ${size}: not a signed note`;
  const names = w.cosigned.map((c) => c.name).join(", ") || "none";
  const missing = w.missing.map((m) => `${m.name} (${m.reason === "absent" ? "no cosignature" : m.reason === "bad_key" ? "unreadable key" : "cosignature does not verify: forged or for another checkpoint"})`).join(", ");
  return `checkpoint of size ${size}: ${w.cosigned.length} of the ${w.quorum} witness cosignatures required (cosigned: ${names}${missing ? `; missing: ${missing}` : ""})`;
}

/** Runs every check; answers how many ran and failed, and the origin. */
export async function verifyLog(o: VerifyOptions): Promise<{ checks: number; failures: number; origin: string }> {
  let checks = 0;
  let failures = 0;
  const say = (ok: boolean, line: string) => {
    checks += 1;
    if (!ok) failures += 1;
    o.say(ok, line);
  };
  const log = o.log ?? (() => {});
  async function api<T>(path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (o.token) headers.token = o.token;
    const res = await o.fetch(path, body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) });
    const json = (await res.json()) as Envelope<T>;
    if (json.code !== 1) throw new Error(`${path}: ${json.msg}`);
    return json.data;
  }

  const { verifier_key, origin, witnesses = [], quorum = 0, key_history = [] } = await api<{ verifier_key: string; origin: string; witnesses?: string[]; quorum?: number; key_history?: string[] }>("/api/proof/key");
  // The key trusted at the first checkpoint: the pinned one, else the log's first key (decision
  // 136). Later keys are trusted only through a handover checkpoint that key signed.
  const first = o.pin ?? key_history[0] ?? verifier_key;
  log(`verifier key ${verifier_key}${o.pin ? (o.pin === verifier_key ? " is the pinned one" : "; pinned an older one: following handovers") : " (pin it with --pin to detect a key change)"}`);
  let key = first;
  const trusted = o.witnesses ?? witnesses;
  const need = o.quorum ?? (o.witnesses ? o.witnesses.length : quorum);
  if (trusted.length > 0 || need > 0) {
    log(`witnesses: ${need} of ${trusted.length} must cosign${o.witnesses ? " (pinned)" : " (as the log names them: pin them with --witness and --quorum, or a log that drops them goes unnoticed)"}`);
  } else {
    log("this log names no witnesses: a fork shown to some users only is caught only by comparing checkpoints with other users");
  }

  // Every checkpoint, oldest first.
  const checkpoints: { tree_size: number; root: Uint8Array; witnessed: boolean; note: string }[] = [];
  for (let page = 1; ; page += 1) {
    const { list } = await api<{ list: { tree_size: number; note: string }[] }>(`/api/proof/checkpoints?page_no=${page}&row=100`);
    if (list.length === 0) break;
    for (const k of list) {
      const opened = openNote(k.note, key);
      const cp = opened.status === "ok" ? parseCheckpoint(opened.body) : null;
      const ok = cp !== null && cp.origin === origin && cp.tree_size === k.tree_size;
      say(ok, `checkpoint of size ${k.tree_size}: ${opened.status === "ok" ? (ok ? "signature holds" : "body does not match") : opened.status === "unknown_key" ? "not signed by a trusted key (a new key needs a handover checkpoint signed by the old one)" : opened.status}`);
      const next = ok ? followHandover(key, k.note, origin) : null;
      if (next) {
        say(true, `checkpoint of size ${k.tree_size}: hands the log over to ${next}, signed by the old key and the new`);
        key = next;
      }
      if (cp) checkpoints.push({ tree_size: cp.tree_size, root: cp.root_hash, witnessed: checkWitnesses(k.note, trusted, need).status === "ok", note: k.note });
    }
  }
  say(key === verifier_key, key === verifier_key ? `the log's key ${verifier_key} is reached from ${first === verifier_key ? "itself" : first}` : `the log signs with ${verifier_key}, which no checkpoint signed by a trusted key hands over to (trusted: ${key})`);
  for (let i = 1; i < checkpoints.length; i += 1) {
    const [a, b] = [checkpoints[i - 1], checkpoints[i]];
    if (b.tree_size <= a.tree_size) {
      say(false, `checkpoint sizes go ${a.tree_size} -> ${b.tree_size}: a log only grows`);
      continue;
    }
    const { proof } = await api<{ proof: string[] }>(`/api/proof/consistency?first=${a.tree_size}&second=${b.tree_size}`);
    say(verifyConsistency(a.tree_size, b.tree_size, proof.map(b64decode), a.root, b.root), `${a.tree_size} -> ${b.tree_size}: consistent`);
  }

  // The checkpoint the log serves as its latest must carry the quorum; the audit stands on the
  // newest one that does (older ones are covered by the consistency chain above).
  const served = await api<{ note: string; tree_size: number }>("/api/proof/checkpoint");
  if (trusted.length > 0 || need > 0) {
    if (served.tree_size === 0) say(false, "no checkpoint has a quorum of witness cosignatures yet");
    else say(checkWitnesses(served.note, trusted, need).status === "ok", `witnesses: ${witnessLine(served.tree_size, checkWitnesses(served.note, trusted, need))}`);
    const newest = checkpoints[checkpoints.length - 1];
    if (newest && !newest.witnessed) log(`checkpoints after the newest witnessed one wait for their cosignatures (${witnessLine(newest.tree_size, checkWitnesses(newest.note, trusted, need))})`);
  }
  const anchor = [...checkpoints].reverse().find((k) => k.witnessed);

  // With a token: the user's own transfers.
  if (o.token) {
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
      const w = checkWitnesses(s.checkpoint, trusted, need);
      if (w.status !== "ok") say(false, `statement ${witnessLine(cp.tree_size, w)}`);
      for (const item of s.list) {
        seen += 1;
        say(verifyInclusion(leafHash(item.leaf), item.leaf_index, cp.tree_size, item.proof.map(b64decode), cp.root_hash), `transfer ${item.transfer_id} is leaf ${item.leaf_index} of ${cp.tree_size}`);
      }
    }
    log(`${seen} of your transfers checked`);
  }

  // The whole log from its public entry bundles, hashed to the anchor checkpoint's root; then the
  // simulated feed's hours and every simulated order's ticks.
  if (anchor) {
    const entries: Uint8Array[] = [];
    let readable = true;
    for (let index = 0; index * TILE_WIDTH < anchor.tree_size; index += 1) {
      const width = Math.min(TILE_WIDTH, anchor.tree_size - index * TILE_WIDTH);
      const res = await o.fetch(`/api/proof/${entriesPath(index, width)}`);
      const bundle = res.ok ? decodeEntryBundle(new Uint8Array(await res.arrayBuffer())) : [];
      if (bundle.length !== width) {
        say(false, `entry bundle ${entriesPath(index, width)}: ${res.ok ? `${bundle.length} entries, ${width} expected` : `HTTP ${res.status}`}`);
        readable = false;
        break;
      }
      entries.push(...bundle);
    }
    if (readable) {
      say(equalBytes(rootOf(entries.map((e) => leafHash(e))), anchor.root), `all ${anchor.tree_size} entries of the public tiles hash to the root of checkpoint ${anchor.tree_size}`);
      for (const f of auditSimulation(entries.map((e) => new TextDecoder().decode(e)), o.now_ms ?? Date.now())) say(f.ok, f.line);
    }
  }
  return { checks, failures, origin };
}
