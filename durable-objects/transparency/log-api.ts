import type { LiabilityEntry, Snapshot } from "../../worker/domain/transparency/liabilities";
import type { WitnessOutcome } from "../../worker/domain/transparency/witnesses";

/** The log sequencer's RPC surface (typed here, so worker/env.ts does not import the class). */
export interface LogSequencerApi extends Rpc.DurableObjectBranded {
  /** Something may have entered the log's inbox: append soon. */
  poke(): Promise<void>;
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
