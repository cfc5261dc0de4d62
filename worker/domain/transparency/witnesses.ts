/**
 * Witnesses (decision 108): independent parties that remember the largest checkpoint of this log
 * they saw and cosign a new one only when a consistency proof shows it extends that one (C2SP
 * tlog-witness, tlog-cosignature v1). A log that forks, or rolls its database back and signs a
 * different history, cannot get the same witnesses to cosign both sides; verifiers that require
 * a quorum of cosignatures therefore see one history or refuse.
 *
 * The sequencer submits its newest checkpoint to each configured witness after it signs it
 * (never before appending: a slow witness never holds a leaf back), keeps the cosignatures the
 * witnesses answer once each verifies, and the API serves checkpoints with those lines appended.
 * With witnesses configured, the checkpoint the API calls the latest is the newest one a quorum
 * cosigned.
 */
import { desc, sql } from "drizzle-orm";
import { jsonAt, type Db } from "../../db/client";
import { log_checkpoints } from "../../db/schema";
import { consistencyProof } from "./merkle";
import { tileReader } from "./tiles";
import { b64encode, checkCosignatureLine, hex, parseWitnessKey, type Hash, type WitnessKey } from "./verify";

export type Witness = WitnessKey & { vkey: string; url: string };
export type WitnessConfig = { witnesses: Witness[]; quorum: number };
type Checkpoint = typeof log_checkpoints.$inferSelect;

/** A handful is plenty (Sigstore and Go run with a few); it also keeps queries far under D1's 100 parameters. */
export const MAX_WITNESSES = 16;

/** A witness that does not answer in this long is tried again later. */
const SUBMIT_TIMEOUT_MS = 10_000;

/** 409 answers followed in one round (each names the size the witness has). */
const MAX_CONFLICT_RETRIES = 2;

const loopback = (host: string) => host === "localhost" || host === "127.0.0.1" || host === "[::1]";

/**
 * LOG_WITNESSES: one witness per line (or comma), each "<verifier key> <submission URL>", the
 * key as C2SP signed-note writes it for a cosignature/v1 key: `<name>+<key id hex>+<base64(0x04
 * || Ed25519 public key)>`. LOG_WITNESS_QUORUM: how many of them must cosign a checkpoint
 * (1..n; all of them when unset). Empty: no witnesses. Anything malformed throws: a log must not
 * quietly run with fewer witnesses than its operator wrote down.
 */
export function parseWitnessConfig(list = "", quorum_text = ""): WitnessConfig {
  const entries = list
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter((s) => s !== "" && !s.startsWith("#"));
  const witnesses = entries.map((entry): Witness => {
    const [vkey = "", url = "", ...rest] = entry.split(/\s+/);
    const key = parseWitnessKey(vkey);
    if (!key || rest.length > 0) throw new Error(`LOG_WITNESSES: "${entry}" is not "<witness verifier key (type 0x04)> <URL>"`);
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new Error(`LOG_WITNESSES: "${url}" is not a URL`);
    }
    if (u.protocol !== "https:" && !(u.protocol === "http:" && loopback(u.hostname))) throw new Error(`LOG_WITNESSES: "${url}" is not https`);
    return { ...key, vkey, url: url.replace(/\/+$/, "") };
  });
  if (witnesses.length > MAX_WITNESSES) throw new Error(`LOG_WITNESSES: at most ${MAX_WITNESSES} witnesses`);
  if (new Set(witnesses.map((w) => w.name)).size !== witnesses.length) throw new Error("LOG_WITNESSES: a witness name appears twice");
  const quorum = quorum_text.trim() === "" ? witnesses.length : Number(quorum_text.trim());
  if (!Number.isSafeInteger(quorum) || quorum < (witnesses.length > 0 ? 1 : 0) || quorum > witnesses.length) {
    throw new Error(`LOG_WITNESS_QUORUM: "${quorum_text}" must be a whole number from 1 to the ${witnesses.length} witnesses${witnesses.length === 0 ? " (there are none)" : ""}`);
  }
  return { witnesses, quorum };
}

const parsed = new Map<string, WitnessConfig>();

/** The deployment's witnesses, parsed once per distinct setting. */
export function witnessConfig(env: { LOG_WITNESSES?: string; LOG_WITNESS_QUORUM?: string }): WitnessConfig {
  const id = `${env.LOG_WITNESSES ?? ""}\u0000${env.LOG_WITNESS_QUORUM ?? ""}`;
  let config = parsed.get(id);
  if (!config) {
    config = parseWitnessConfig(env.LOG_WITNESSES, env.LOG_WITNESS_QUORUM);
    if (parsed.size > 8) parsed.clear();
    parsed.set(id, config);
  }
  return config;
}

const idOf = (w: { name: string; key_id: Uint8Array }) => `${w.name}+${hex(w.key_id)}`;

/** The note with its cosignature lines after the log's own signature line(s). */
export function withCosignatures(note: string, lines: readonly string[]): string {
  return note + lines.map((l) => `${l}\n`).join("");
}

/** Every kept cosignature line of the checkpoints of sizes `first` to `last`, by size. */
export async function cosignaturesBetween(db: Db, first: number, last: number): Promise<Map<number, string[]>> {
  const rows = await db.all<{ tree_size: number; line: string }>(sql`SELECT tree_size, line FROM log_cosignatures WHERE tree_size BETWEEN ${first} AND ${last} ORDER BY tree_size, witness, key_id`);
  const out = new Map<number, string[]>();
  for (const r of rows) out.set(r.tree_size, [...(out.get(r.tree_size) ?? []), r.line]);
  return out;
}

/** A checkpoint as served: its note with the witnesses' lines appended. */
export async function served(db: Db, checkpoint: Checkpoint): Promise<Checkpoint> {
  const lines = (await cosignaturesBetween(db, checkpoint.tree_size, checkpoint.tree_size)).get(checkpoint.tree_size) ?? [];
  return { ...checkpoint, note: withCosignatures(checkpoint.note, lines) };
}

/** The newest signed checkpoint, witnessed or not. */
export async function latestSigned(db: Db): Promise<Checkpoint | undefined> {
  return db.query.log_checkpoints.findFirst({ orderBy: desc(log_checkpoints.tree_size) });
}

/**
 * The checkpoint the log stands behind: the newest one a quorum of the configured witnesses
 * cosigned, or simply the newest when no witnesses are configured.
 */
export async function latestPublished(db: Db, config: WitnessConfig): Promise<Checkpoint | undefined> {
  if (config.witnesses.length === 0) return latestSigned(db);
  const configured = sql.join(config.witnesses.map((w) => sql`(${w.name}, ${hex(w.key_id)})`), sql`, `);
  // Walks the primary key from the top and stops at the first size with a quorum.
  const [row] = await db.all<Checkpoint>(sql`
    SELECT c.tree_size, c.root_hash, c.note, c.created_at_ms FROM log_checkpoints c
    WHERE c.tree_size = (
      SELECT s.tree_size FROM log_cosignatures s WHERE (s.witness, s.key_id) IN (VALUES ${configured})
      GROUP BY s.tree_size HAVING COUNT(*) >= ${config.quorum} ORDER BY s.tree_size DESC LIMIT 1)`);
  return row;
}

/** C2SP tlog-witness add-checkpoint: "old <size>", the proof's hashes, a blank line, the note. */
export function addCheckpointBody(old_size: number, proof: readonly Hash[], note: string): string {
  return `old ${old_size}\n${proof.map((h) => `${b64encode(h)}\n`).join("")}\n${note}`;
}

export type WitnessFetch = (url: string, init: RequestInit) => Promise<Response>;

export type WitnessOutcome = {
  witness: string;
  tree_size: number;
  /**
   * current: had cosigned this size already; cosigned: did now; ahead: the witness has seen a
   * larger tree of this log than ours (our database was rolled back, or the log forked);
   * conflict: it has another root at this very size (a fork); refused: any other answer (422:
   * our proof does not extend what it saw, which is a fork too); bad_cosignature: it answered
   * lines that do not verify; unreachable: no answer.
   */
  status: "current" | "cosigned" | "ahead" | "conflict" | "refused" | "bad_cosignature" | "unreachable";
  detail?: string;
};

type Cosigned = { witness: Witness; line: string; timestamp_s: number };

/**
 * One witness, one checkpoint: submit it with the consistency proof from the size the witness
 * last cosigned (which we remember, or which a 409 tells us), and keep the answer's lines that
 * verify under the witness's key.
 */
async function submit(
  w: Witness,
  checkpoint: Checkpoint,
  old_size: number,
  proofFrom: (old: number) => Promise<Hash[]>,
  fetcher: WitnessFetch,
  known: Map<string, number>,
): Promise<{ outcome: WitnessOutcome; cosigned: Cosigned[] }> {
  const body = checkpoint.note.slice(0, checkpoint.note.lastIndexOf("\n\n") + 1);
  const done = (status: WitnessOutcome["status"], detail?: string) => ({ outcome: { witness: w.name, tree_size: checkpoint.tree_size, status, ...(detail ? { detail } : {}) }, cosigned: [] });
  let old = old_size;
  for (let attempt = 0; attempt <= MAX_CONFLICT_RETRIES; attempt += 1) {
    if (old > checkpoint.tree_size) return done("ahead", `the witness has cosigned size ${old}, ours is ${checkpoint.tree_size}`);
    const proof = old === 0 || old === checkpoint.tree_size ? [] : await proofFrom(old);
    let res: Response;
    let text: string;
    try {
      res = await fetcher(`${w.url}/add-checkpoint`, { method: "POST", headers: { "content-type": "text/plain; charset=utf-8" }, body: addCheckpointBody(old, proof, checkpoint.note), signal: AbortSignal.timeout(SUBMIT_TIMEOUT_MS) });
      text = await res.text();
    } catch (err) {
      return done("unreachable", String(err instanceof Error ? err.message : err).slice(0, 200));
    }
    if (res.status === 200) {
      const cosigned: Cosigned[] = [];
      for (const line of text.split("\n")) {
        const r = checkCosignatureLine(line, body, w);
        if (r.status === "ok") cosigned.push({ witness: w, line, timestamp_s: r.timestamp_s });
      }
      if (cosigned.length === 0) return done("bad_cosignature", text.slice(0, 200));
      known.set(idOf(w), checkpoint.tree_size);
      return { outcome: { witness: w.name, tree_size: checkpoint.tree_size, status: "cosigned" }, cosigned: cosigned.slice(0, 1) };
    }
    if (res.status === 409) {
      const size = /^(0|[1-9][0-9]*)\n?$/.test(text) ? Number(text.trim()) : NaN;
      if (!Number.isSafeInteger(size)) return done("refused", `409 without a size: ${text.slice(0, 100)}`);
      // The size we sent is the size it has: it holds another root for it.
      if (size === old) return done("conflict", `the witness holds another root at size ${size}`);
      known.set(idOf(w), size);
      old = size;
      continue;
    }
    return done("refused", `HTTP ${res.status}${res.status === 422 ? " (our consistency proof does not extend what it saw)" : ""}: ${text.slice(0, 200)}`);
  }
  return done("refused", "kept answering 409");
}

/**
 * A round: the newest checkpoint to every configured witness that has not cosigned it, in
 * parallel; the verified cosignatures kept in one statement. Answers each witness's outcome and
 * the checkpoint as now served (with its lines) when a quorum has cosigned it.
 * `known` is what this sequencer learned of each witness's size (from 409s and successes);
 * without it, the largest size the witness cosigned for us is where its proof starts.
 */
export async function witnessRound(
  db: Db,
  get: (path: string) => Promise<Uint8Array | null>,
  config: WitnessConfig,
  fetcher: WitnessFetch,
  now_ms: number,
  known: Map<string, number>,
): Promise<{ outcomes: WitnessOutcome[]; published: Checkpoint | null }> {
  const latest = await latestSigned(db);
  if (!latest || config.witnesses.length === 0) return { outcomes: [], published: null };
  // The largest size each witness cosigned for us: one index lookup per witness.
  const configured = sql.join(config.witnesses.map((w) => sql`(${w.name}, ${hex(w.key_id)})`), sql`, `);
  const mine = await db.all<{ witness: string; key_id: string; last: number | null }>(sql`
    SELECT w.column1 AS witness, w.column2 AS key_id, (SELECT MAX(s.tree_size) FROM log_cosignatures s WHERE s.witness = w.column1 AND s.key_id = w.column2) AS last
    FROM (VALUES ${configured}) w`);
  const last = new Map(mine.map((m) => [`${m.witness}+${m.key_id}`, m.last === null ? 0 : Number(m.last)]));
  const read = tileReader(get, latest.tree_size);
  const proofFrom = (old: number) => consistencyProof(old, latest.tree_size, read);
  const results = await Promise.all(
    config.witnesses.map((w) => {
      const had = last.get(idOf(w)) ?? 0;
      if (had >= latest.tree_size) return { outcome: { witness: w.name, tree_size: latest.tree_size, status: "current" as const }, cosigned: [] };
      return submit(w, latest, known.get(idOf(w)) ?? had, proofFrom, fetcher, known);
    }),
  );
  const cosigned = results.flatMap((r) => r.cosigned);
  if (cosigned.length > 0) {
    // One statement, one JSON parameter, whatever the number of witnesses.
    const rows = JSON.stringify(cosigned.map((c) => [latest.tree_size, c.witness.name, hex(c.witness.key_id), c.timestamp_s, c.line, now_ms]));
    await db.run(sql`INSERT OR IGNORE INTO log_cosignatures (tree_size, witness, key_id, timestamp_s, line, created_at_ms) SELECT ${jsonAt(0)}, ${jsonAt(1)}, ${jsonAt(2)}, ${jsonAt(3)}, ${jsonAt(4)}, ${jsonAt(5)} FROM json_each(${rows}) WHERE true`);
  }
  const outcomes = results.map((r) => r.outcome);
  const witnessed = outcomes.filter((o) => o.status === "current" || o.status === "cosigned").length >= config.quorum;
  return { outcomes, published: witnessed ? await served(db, latest) : null };
}
