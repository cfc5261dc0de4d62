/**
 * The transparency log at a million leaves: inclusion and consistency proofs made the way the
 * API makes them (worker/domain/transparency: the tile reader over the local R2 the server
 * uses, through getPlatformProxy), next to the floor of one bare R2 read of a tile.
 * Target: p50 <= 50 ms for each proof.
 */
import { mkdirSync, rmSync } from "node:fs";
import { getPlatformProxy } from "wrangler";
import { appendHashes, consistencyProof, inclusionProof, treeRoot, type HashId } from "../../worker/domain/transparency/merkle";
import { hashTilesToWrite, tilePath, tileReader } from "../../worker/domain/transparency/tiles";
import { leafHash, verifyConsistency, verifyInclusion, type Hash } from "../../worker/domain/transparency/verify";
import type { Env } from "../../worker/env";
import { ms, summarize, type GroupResult } from "./lib";

const LEAVES = 1_000_000;
const RUNS = 200;

export async function benchLogProofs(stateDir: string): Promise<GroupResult> {
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  console.log(`\n== log: ${LEAVES.toLocaleString("en")} leaves hashed and tiled into the local R2 (${stateDir}), then ${RUNS} inclusion and ${RUNS} consistency proofs`);
  const t0 = performance.now();
  const store = new Map<string, Hash>();
  const read = async (ids: HashId[]) => ids.map((id) => store.get(`${id.level}/${id.index}`)!);
  const made: { id: HashId; hash: Hash }[] = [];
  for (let size = 0; size < LEAVES; ) {
    const n = Math.min(65_536, LEAVES - size);
    const batch = await appendHashes(size, Array.from({ length: n }, (_, k) => leafHash(`leaf ${size + k}`)), read);
    for (const m of batch) store.set(`${m.id.level}/${m.id.index}`, m.hash);
    for (const m of batch) made.push(m);
    size += n;
  }
  const root = await treeRoot(LEAVES, read);
  console.log(`hashed in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const { env, dispose } = await getPlatformProxy<Env>({ persist: { path: `${stateDir}/v3` } });
  try {
    const tiles = await hashTilesToWrite(0, LEAVES, made, async () => null);
    const t1 = performance.now();
    for (let i = 0; i < tiles.length; i += 64) await Promise.all(tiles.slice(i, i + 64).map((t) => env.LOG.put(t.path, t.bytes)));
    console.log(`${tiles.length} tiles written to R2 in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
    const get = async (path: string) => {
      const o = await env.LOG.get(path);
      return o ? new Uint8Array(await o.arrayBuffer()) : null;
    };
    const time = async (fn: () => Promise<unknown>) => {
      const s = performance.now();
      await fn();
      return performance.now() - s;
    };
    const floor: number[] = [];
    const inclusion: number[] = [];
    const consistency: number[] = [];
    let bad = 0;
    for (let r = 0; r < RUNS; r += 1) {
      const i = Math.floor(Math.random() * LEAVES);
      const m = 1 + Math.floor(Math.random() * (LEAVES - 1));
      floor.push(await time(() => get(tilePath(0, Math.floor(i / 256)))));
      let proof: Hash[] = [];
      // A fresh reader per proof, as the API makes one per request (no cache across requests).
      inclusion.push(await time(async () => (proof = await inclusionProof(i, LEAVES, tileReader(get, LEAVES)))));
      if (!verifyInclusion(leafHash(`leaf ${i}`), i, LEAVES, proof, root)) bad += 1;
      let cproof: Hash[] = [];
      consistency.push(await time(async () => (cproof = await consistencyProof(m, LEAVES, tileReader(get, LEAVES)))));
      if (!verifyConsistency(m, LEAVES, cproof, await treeRoot(m, read), root)) bad += 1;
    }
    const [f, inc, con] = [summarize(floor), summarize(inclusion), summarize(consistency)];
    const line = (name: string, s: ReturnType<typeof summarize>) => `${name}: p50 ${ms(s.p50)} ms, p99 ${ms(s.p99)} ms (${(s.p50 / f.p50).toFixed(1)}x the floor's p50)`;
    const verdicts = [
      `floor, one bare R2 get of a tile: p50 ${ms(f.p50)} ms, p99 ${ms(f.p99)} ms`,
      line("inclusion proof at 1,000,000 leaves", inc),
      line("consistency proof to 1,000,000 leaves", con),
      `${inc.p50 <= 50 && con.p50 <= 50 && bad === 0 ? "PASS" : "FAIL"}  log proofs: p50 inclusion ${ms(inc.p50)} ms, consistency ${ms(con.p50)} ms (target <= 50 ms each); ${bad} failed to verify`,
    ];
    for (const v of verdicts) console.log(v);
    return { rows: [], verdicts };
  } finally {
    await dispose();
  }
}
