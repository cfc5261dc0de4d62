/**
 * The transparency log's one sequencer: it alone gives leaves their index, so the log has one
 * order. Poked after writes that may have queued leaves (and by the minute cron as a backstop),
 * it appends in batches from its alarm and signs a checkpoint per batch. Its keys come from
 * Worker secrets in production; locally they are generated into this object's own storage on
 * first use (never D1, never the repository). See docs/transparency.md.
 *
 * With witnesses configured (LOG_WITNESSES), it then submits its newest checkpoint to them
 * (decision 108). That round is never awaited by an append: a slow or dead witness delays
 * nothing but its own cosignature, and a failed round is tried again from the alarm with a
 * growing pause.
 */
import { isLocalRun } from "../../worker/app-env";
import { DurableObject } from "cloudflare:workers";
import { getDb } from "../../worker/db/client";
import type { Env } from "../../worker/env";
import { generateSigningKey, publicKeyOf, verifierKey } from "../../worker/domain/transparency/note";
import { appendBatch, keyContinuity, pseudonymOf, type LogKeys, type TileStore } from "../../worker/domain/transparency/sequencer";
import { b64decode } from "../../worker/domain/transparency/verify";
import { entryOf, latestSnapshot, scrubLiabilityFiles, takeSnapshot } from "../../worker/domain/transparency/liabilities";
import { latestSigned, witnessConfig, witnessRound, type WitnessConfig, type WitnessFetch, type WitnessOutcome } from "../../worker/domain/transparency/witnesses";
import { askHold, heldUntil, NO_HOLD, releaseHold, type LogHold } from "./hold";
import type { LogSequencerApi } from "./log-api";
import { logError, logInfo, logWarn, asInvocation } from "../../worker/observability/log";

const DAY_MS = 24 * 3600_000;

/** After an append, look once more this soon: writes that raced the batch are picked up. */
const FOLLOW_UP_MS = 1_000;

/** How many written tiles the sequencer keeps to read back (each batch reads a few of the last). */
const RECENT_TILES = 32;
/** A witness round that failed is tried again after this, doubling up to the ceiling. */
const WITNESS_RETRY_MS = 15_000;
const WITNESS_RETRY_MAX_MS = 10 * 60_000;

export class LogSequencer extends DurableObject<Env> implements LogSequencerApi {
  /** The tiles and entry bundles this object wrote last, by path (see store()). */
  private readonly recentTiles = new Map<string, Uint8Array>();
  private keysCache: LogKeys | null | undefined;
  /** Set once the latest checkpoint is known to be signed by our key (decision 136). */
  private keyContinuous = false;
  /** The round in flight, if any: one at a time, so each round's checkpoint is newer than the last's. */
  private witnessing: Promise<WitnessOutcome[]> | null = null;
  /** Each witness's size as it last told us (a 409 or a cosignature), before D1's record of it. */
  private witnessSizes = new Map<string, number>();
  private witnessRetryAt_ms = 0;
  private witnessPause_ms = WITNESS_RETRY_MS;
  /** A quote hub's hold while it settles a burst (hold.ts): memory only, forgotten on a restart. */
  private held: LogHold = NO_HOLD;
  /** How witnesses are reached: the platform's fetch; a test puts its own witnesses here. */
  witnessFetch: WitnessFetch = (url, init) => fetch(url, init);

  async poke() {
    // Only ever earlier than the follow-up: a witness retry pending minutes away must not hold new
    // leaves back, but the follow-up a second away stays, so a busy second's leaves go in one batch
    // (a poke per order group pulling it to 50 ms signed a checkpoint every few groups).
    const at = await this.ctx.storage.getAlarm();
    if (at === null || at > Date.now() + FOLLOW_UP_MS) await this.ctx.storage.setAlarm(Date.now() + 50);
  }

  async hold() {
    this.held = askHold(this.held, Date.now());
  }

  async release() {
    const was = heldUntil(this.held, Date.now());
    this.held = releaseHold(this.held, Date.now());
    // What waited for the hold goes now, not at the re-armed alarm.
    if (was !== null) await this.poke();
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
    const keys = await this.signingKeys();
    if (!keys) return 0;
    for (;;) {
      const r = await appendBatch(getDb(this.env.DB), this.store(), keys, Date.now(), { publish_checkpoint: this.unwitnessed() });
      if (!r.more) return r.tree_size;
    }
  }

  /** A witness round now, awaited (tests and operators; the alarm starts its own and never waits). */
  async witness(): Promise<WitnessOutcome[]> {
    if (this.witnessing) await this.witnessing;
    return this.startWitnessing() ?? [];
  }

  async takeLiabilities(taken_by: string) {
    const keys = await this.keys();
    return keys ? takeSnapshot(getDb(this.env.DB), this.store(), keys, taken_by, Date.now()) : null;
  }

  async liabilitiesIfDue() {
    // Once: leaves files from before decision 109 lose the user ids they named.
    if (!(await this.ctx.storage.get<boolean>("liabilities_scrubbed"))) {
      const n = await scrubLiabilityFiles(this.env.LOG);
      if (n > 0) logInfo("log.liabilities_scrubbed", { files: n });
      await this.ctx.storage.put("liabilities_scrubbed", true);
    }
    const latest = await latestSnapshot(getDb(this.env.DB));
    if (!latest || Date.now() - latest.taken_at_ms >= DAY_MS) await this.takeLiabilities("daily");
  }

  async liabilitiesEntry(user_id: number) {
    const keys = await this.keys();
    return keys ? entryOf(getDb(this.env.DB), this.store(), keys, user_id) : null;
  }

  async alarm(): Promise<void> {
    return asInvocation("alarm:log-sequencer", () => this.onAlarm());
  }

  /** The alarm's work, under an invocation id of its own (its log lines carry it). */
  private async onAlarm(): Promise<void> {
    // A burst is settling: the appends wait for it (bounded, hold.ts); the alarm comes back then.
    const until = heldUntil(this.held, Date.now());
    if (until !== null) return void (await this.ctx.storage.setAlarm(until));
    const keys = await this.signingKeys();
    if (!keys) return;
    const r = await appendBatch(getDb(this.env.DB), this.store(), keys, Date.now(), { publish_checkpoint: this.unwitnessed() });
    // Started, not awaited: the next batch never waits for a witness.
    if (Date.now() >= this.witnessRetryAt_ms) void this.startWitnessing();
    let next = r.more ? Date.now() : r.appended > 0 ? Date.now() + FOLLOW_UP_MS : null;
    if (this.witnessRetryAt_ms > Date.now()) next = Math.min(next ?? Infinity, this.witnessRetryAt_ms);
    if (next !== null) await this.ctx.storage.setAlarm(next);
  }

  /** No witnesses configured (the checkpoint is published as soon as it is signed). */
  private unwitnessed(): boolean {
    const config = this.witnessConfig();
    return config !== null && config.witnesses.length === 0;
  }

  private witnessConfig(): WitnessConfig | null {
    try {
      return witnessConfig(this.env);
    } catch (err) {
      // Malformed: no checkpoint is published or witnessed until an operator fixes it.
      logError("log.witnesses_misconfigured", { err });
      return null;
    }
  }

  /** Starts a round unless one runs or there are no witnesses; answers it (null: none started). */
  private startWitnessing(): Promise<WitnessOutcome[]> | null {
    const config = this.witnessConfig();
    if (this.witnessing || !config || config.witnesses.length === 0) return this.witnessing;
    const store = this.store();
    const round = witnessRound(getDb(this.env.DB), store.get, config, this.witnessFetch, Date.now(), this.witnessSizes)
      .then(async ({ outcomes, published }) => {
        if (published) await store.put("checkpoint", new TextEncoder().encode(published.note));
        const failed = outcomes.filter((o) => o.status !== "current" && o.status !== "cosigned");
        for (const o of failed) logError("log.witness_failed", { witness: o.witness, tree_size: o.tree_size, status: o.status, detail: o.detail });
        // Leaves appended during the round are signed in a newer checkpoint: witness it next.
        const newer = outcomes.length > 0 && ((await latestSigned(getDb(this.env.DB)))?.tree_size ?? 0) > outcomes[0].tree_size;
        await this.afterRound(failed.length > 0, newer);
        return outcomes;
      })
      .catch(async (err) => {
        logError("log.witness_round_failed", { err });
        await this.afterRound(true, false);
        return [] as WitnessOutcome[];
      })
      .finally(() => {
        this.witnessing = null;
      });
    this.witnessing = round;
    return round;
  }

  /**
   * A failed witness is tried again later, a newer checkpoint soon: the alarm wakes for either
   * (not under tests, which drive their rounds themselves).
   */
  private async afterRound(failed: boolean, newer: boolean) {
    if (failed) {
      this.witnessRetryAt_ms = Date.now() + this.witnessPause_ms;
      this.witnessPause_ms = Math.min(this.witnessPause_ms * 2, WITNESS_RETRY_MAX_MS);
    } else {
      this.witnessRetryAt_ms = 0;
      this.witnessPause_ms = WITNESS_RETRY_MS;
    }
    if (this.env.APP_ENV === "test" || (!failed && !newer)) return;
    const want = failed ? this.witnessRetryAt_ms : Date.now() + FOLLOW_UP_MS;
    const at = await this.ctx.storage.getAlarm();
    if (at === null || at > want) await this.ctx.storage.setAlarm(want);
  }

  private store(): TileStore {
    const bucket = this.env.LOG;
    const recent = this.recentTiles;
    return {
      get: async (path) => {
        const known = recent.get(path);
        if (known) return known;
        const o = await bucket.get(path);
        return o ? new Uint8Array(await o.arrayBuffer()) : null;
      },
      put: async (path, bytes) => {
        await bucket.put(path, bytes);
        // A tile's path names its contents for good (a partial tile that grows gets a new path),
        // so what this object wrote is what the bucket holds: the next batch reads it from here.
        if (path.startsWith("tile/")) {
          recent.set(path, bytes);
          if (recent.size > RECENT_TILES) recent.delete(recent.keys().next().value!);
        }
      },
    };
  }

  /**
   * The keys to sign the next checkpoint with, after the handover rule (decision 136): our key
   * once the latest checkpoint is ours; a handover while the latest is the previous key's; none
   * (nothing appended, logged loudly) while it is signed by a key we do not hold.
   */
  private async signingKeys(): Promise<LogKeys | null> {
    const keys = await this.keys();
    if (!keys || this.keyContinuous) return keys;
    const continuity = await keyContinuity(getDb(this.env.DB), keys);
    if (continuity === "fresh" || continuity === "current") {
      this.keyContinuous = true;
      return keys;
    }
    if (continuity === "handover") {
      logWarn("log.key_handover", { from: verifierKey(keys.origin, publicKeyOf(keys.previous_seed!)), to: verifierKey(keys.origin, publicKeyOf(keys.signing_seed)) });
      return { ...keys, handover_from: keys.previous_seed };
    }
    logError("log.key_unknown", { detail: "the latest checkpoint is signed by neither LOG_SIGNING_KEY nor LOG_PREVIOUS_SIGNING_KEY: nothing is signed (docs/ops/keys.md)" });
    return null;
  }

  /** Secrets in production; elsewhere generated once into this object's storage. */
  private async keys(): Promise<LogKeys | null> {
    if (this.keysCache !== undefined) return this.keysCache;
    const origin = this.env.LOG_ORIGIN || "localhost/proofline";
    if (this.env.LOG_SIGNING_KEY && this.env.LOG_PSEUDONYM_KEY) {
      const previous = this.env.LOG_PREVIOUS_SIGNING_KEY ? b64decode(this.env.LOG_PREVIOUS_SIGNING_KEY) : null;
      this.keysCache = { origin, signing_seed: b64decode(this.env.LOG_SIGNING_KEY), pseudonym_key: b64decode(this.env.LOG_PSEUDONYM_KEY), previous_seed: previous };
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
