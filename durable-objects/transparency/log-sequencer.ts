/**
 * The transparency log's one sequencer: it alone gives leaves their index, so the log has one
 * order. Poked after writes that may have queued leaves (and by the minute cron as a backstop),
 * it appends in batches from its alarm and signs a checkpoint per batch. Its keys come from
 * Worker secrets in production; locally they are generated into this object's own storage on
 * first use (never D1, never the repository). See docs/transparency.md.
 */
import { isLocalRun } from "../../worker/app-env";
import { DurableObject } from "cloudflare:workers";
import { getDb } from "../../worker/db/client";
import type { Env } from "../../worker/env";
import { generateSigningKey, publicKeyOf, verifierKey } from "../../worker/domain/transparency/note";
import { appendBatch, pseudonymOf, type LogKeys, type TileStore } from "../../worker/domain/transparency/sequencer";
import { b64decode } from "../../worker/domain/transparency/verify";
import { entryOf, latestSnapshot, takeSnapshot } from "../../worker/domain/transparency/liabilities";
import type { LogSequencerApi } from "./log-api";

const DAY_MS = 24 * 3600_000;

/** After an append, look once more this soon: writes that raced the batch are picked up. */
const FOLLOW_UP_MS = 1_000;

export class LogSequencer extends DurableObject<Env> implements LogSequencerApi {
  private keysCache: LogKeys | null | undefined;

  async poke() {
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + 50);
  }

  async identity() {
    const keys = await this.keys();
    return keys ? { origin: keys.origin, verifier_key: verifierKey(keys.origin, publicKeyOf(keys.signing_seed)) } : null;
  }

  async pseudonym(user_id: number) {
    const keys = await this.keys();
    return keys ? pseudonymOf(keys.pseudonym_key, user_id) : null;
  }

  async drain(): Promise<number> {
    const keys = await this.keys();
    if (!keys) return 0;
    for (;;) {
      const r = await appendBatch(getDb(this.env.DB), this.store(), keys, Date.now());
      if (!r.more) return r.tree_size;
    }
  }

  async takeLiabilities(taken_by: string) {
    const keys = await this.keys();
    return keys ? takeSnapshot(getDb(this.env.DB), this.store(), keys, taken_by, Date.now()) : null;
  }

  async liabilitiesIfDue() {
    const latest = await latestSnapshot(getDb(this.env.DB));
    if (!latest || Date.now() - latest.taken_at_ms >= DAY_MS) await this.takeLiabilities("daily");
  }

  async liabilitiesEntry(user_id: number) {
    return (await this.keys()) ? entryOf(getDb(this.env.DB), this.store(), user_id) : null;
  }

  async alarm() {
    const keys = await this.keys();
    if (!keys) return;
    const r = await appendBatch(getDb(this.env.DB), this.store(), keys, Date.now());
    if (r.more) await this.ctx.storage.setAlarm(Date.now());
    else if (r.appended > 0) await this.ctx.storage.setAlarm(Date.now() + FOLLOW_UP_MS);
  }

  private store(): TileStore {
    const bucket = this.env.LOG;
    return {
      get: async (path) => {
        const o = await bucket.get(path);
        return o ? new Uint8Array(await o.arrayBuffer()) : null;
      },
      put: async (path, bytes) => {
        await bucket.put(path, bytes);
      },
    };
  }

  /** Secrets in production; elsewhere generated once into this object's storage. */
  private async keys(): Promise<LogKeys | null> {
    if (this.keysCache !== undefined) return this.keysCache;
    const origin = this.env.LOG_ORIGIN || "localhost/proofline";
    if (this.env.LOG_SIGNING_KEY && this.env.LOG_PSEUDONYM_KEY) {
      this.keysCache = { origin, signing_seed: b64decode(this.env.LOG_SIGNING_KEY), pseudonym_key: b64decode(this.env.LOG_PSEUDONYM_KEY) };
    } else if (!isLocalRun(this.env)) {
      this.keysCache = null;
    } else {
      let local = await this.ctx.storage.get<{ signing_seed: Uint8Array; pseudonym_key: Uint8Array }>("local_keys");
      if (!local) {
        local = { signing_seed: generateSigningKey(), pseudonym_key: crypto.getRandomValues(new Uint8Array(32)) };
        await this.ctx.storage.put("local_keys", local);
      }
      this.keysCache = { origin, ...local };
    }
    return this.keysCache;
  }
}
