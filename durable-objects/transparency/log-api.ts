import type { LiabilityEntry, Snapshot } from "../../worker/domain/transparency/liabilities";
import type { WitnessOutcome } from "../../worker/domain/transparency/witnesses";
import { logError } from "../../worker/observability/log";

/** The log sequencer's RPC surface (typed here, so worker/env.ts does not import the class). */
export interface LogSequencerApi extends Rpc.DurableObjectBranded {
  /** Something may have entered the log's inbox: append soon. */
  poke(): Promise<void>;
  /** A quote hub is settling a burst: appends wait for it, within the bounds of hold.ts. */
  hold(): Promise<void>;
  /** The burst is settled: appends go on now. */
  release(): Promise<void>;
  /** The verifier key and origin, or null when the log has no keys (production without secrets). */
  identity(): Promise<{ origin: string; verifier_key: string } | null>;
  /** The account pseudonym leaves use for this user (null without keys). */
  pseudonym(user_id: number): Promise<string | null>;
  /** Appends everything waiting now (tests and the cron call it); answers the tree size. */
  drain(): Promise<number>;
  /** Submits the newest checkpoint to the witnesses now and answers how each responded. */
  witness(): Promise<WitnessOutcome[]>;
  /** Proof of liabilities: a snapshot now (null without keys). */
  takeLiabilities(taken_by: string): Promise<Snapshot | null>;
  /** The daily snapshot, if the latest is a day old or there is none. */
  liabilitiesIfDue(): Promise<void>;
  /** The user's leaf and path in the latest snapshot (null: not in it, or no keys). */
  liabilitiesEntry(user_id: number): Promise<LiabilityEntry | null>;
}

/**
 * Reaching the sequencer. Writes that may queue leaves poke it: money-moving API requests, the
 * quote hubs' settlements and the minute cron. Under tests (APP_ENV "test") nothing pokes: tests
 * drain the log themselves, so no alarm outlives a test file's storage.
 */
type LogEnv = { LOG_SEQUENCER: DurableObjectNamespace<LogSequencerApi>; APP_ENV: string };

/** The sequencer's id per namespace, kept for the isolate's life (a name always maps to the same id). */
const sequencerIds = new WeakMap<object, DurableObjectId>();

export function logSequencer(env: Pick<LogEnv, "LOG_SEQUENCER">) {
  let id = sequencerIds.get(env.LOG_SEQUENCER);
  if (!id) sequencerIds.set(env.LOG_SEQUENCER, (id = env.LOG_SEQUENCER.idFromName("log")));
  return env.LOG_SEQUENCER.get(id);
}

/** Under tests nothing reaches the log by itself: each test drains it, so no alarm outlives its storage. */
export function logWorksAlone(env: Pick<LogEnv, "APP_ENV">): boolean {
  return env.APP_ENV !== "test";
}

export const pokeLog = (env: LogEnv) => reach(env, (log) => log.poke(), (err) => logError("log.poke_failed", { err }));

/** A burst is settling (hold.ts); `releaseLog` when it is settled. */
export const holdLog = (env: LogEnv) => reach(env, (log) => log.hold(), (err) => logError("log.hold_failed", { err }));

export const releaseLog = (env: LogEnv) => reach(env, (log) => log.release(), (err) => logError("log.release_failed", { err }));

/**
 * One call to the sequencer, never thrown: the write it follows has happened, and the next poke
 * or the cron appends it. A lost hold or release costs a burst a little time, or the log at most
 * one episode (hold.ts).
 */
async function reach(env: LogEnv, call: (log: ReturnType<typeof logSequencer>) => Promise<void>, failed: (err: unknown) => void): Promise<void> {
  if (!logWorksAlone(env)) return;
  try {
    await call(logSequencer(env));
  } catch (err) {
    failed(err);
  }
}
