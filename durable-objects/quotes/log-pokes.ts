/**
 * Wakes the transparency log within LOG_POKE_MS of a write that queued leaves (orders,
 * settlements, the simulation's commitments): every such write is followed by a poke, and the
 * writes of those milliseconds share it (each poke is a call and a storage write in the
 * sequencer; under load a hub writes dozens of groups a second).
 */
import { holdLog, pokeLog, releaseLog } from "../transparency/log-api";

/** A write that queued log leaves wakes the log at most this much later. */
const LOG_POKE_MS = 100;

type LogEnv = Parameters<typeof pokeLog>[0];

export class LogPokes {
  private pending = false;
  /** This hub asked the log to hold for its burst and has not released it yet. */
  private holding = false;

  constructor(
    private readonly env: () => LogEnv,
    private readonly background: (work: Promise<unknown>) => void,
  ) {}

  /** A write queued leaves: the log is poked within LOG_POKE_MS, once for all writes until then. */
  soon() {
    if (this.pending) return;
    this.pending = true;
    this.background(
      new Promise((later) => setTimeout(later, LOG_POKE_MS)).then(() => {
        this.pending = false;
        return pokeLog(this.env());
      }),
    );
  }

  /** A burst is settling: the log holds its appends (asked again at each invocation, bounded by the log, hold.ts). */
  holdForBurst() {
    this.holding = true;
    this.background(holdLog(this.env()));
  }

  /** The burst is settled: the log goes on now. Nothing to do when this hub held nothing. */
  burstSettled() {
    if (!this.holding) return;
    this.holding = false;
    this.background(releaseLog(this.env()));
  }
}
