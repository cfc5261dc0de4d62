/**
 * One settlement round of a hub: its due orders settled (settlement-loop.ts), each owner told
 * once over their channel and their `orders_settled` notices pushed to their devices after, the
 * round's metric point, and the transparency log woken for the settlements it queued.
 */
import type { Db } from "../../worker/db/client";
import type { Env } from "../../worker/env";
import { pushNotices } from "../../worker/notices";
import { recordMetric } from "../../worker/observability/metrics";
import { userChannel } from "../user-channel/channel-api";
import { notifyOwner, type Outcome } from "./notify";
import { d1DueOrders, settleDue, type SettlementDeps, type SettleRun } from "./settlement-loop";

export type RoundHub = Pick<SettlementDeps, "ticks" | "exposure" | "keepBeat" | "onBurst"> & {
  env: Env;
  symbol: string;
  /** The invocation's counted view of D1. */
  db: Db;
  background(work: Promise<unknown>): void;
  pokeLog(): void;
  /** Nothing more is due: a hold asked for a burst (onBurst) ends. */
  burstSettled(): void;
};

export async function settleRound(hub: RoundHub, now: number): Promise<SettleRun> {
  const channel = (user_id: number) => userChannel(hub.env, user_id);
  // The owners told of this run: their `orders_settled` notices (written at `now`) go to their devices after.
  const owners = new Set<number>();
  const notify = (user_id: number, outcomes: Outcome[]) => (owners.add(user_id), notifyOwner(channel, user_id, outcomes));
  const run = await settleDue({ ticks: hub.ticks, exposure: hub.exposure, notify, keepBeat: hub.keepBeat, onBurst: hub.onBurst }, d1DueOrders(hub.db), hub.symbol, now);
  // The round's point: how many orders, and how long after its delivery the oldest was settled.
  if (run.settled > 0) recordMetric(hub.env.METRICS, "settlement", { symbol: hub.symbol, orders: run.settled, lag_ms: Date.now() - (run.oldest_delivery_at_ms ?? now) });
  if (owners.size > 0) hub.background(pushNotices(hub.env, hub.db, [...owners], now));
  // Settled orders and their transfers are now in the log's inbox.
  if (run.settled > 0) hub.pokeLog();
  if (!run.more) hub.burstSettled();
  return run;
}
