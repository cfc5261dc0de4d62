/**
 * Telling a user that orders of theirs settled: one call to their UserChannel per settlement
 * run, however many of their orders it settled.
 */
import type { Order } from "../../worker/domain/trades/orders";
import type { ServerMessage } from "../protocol";

export type Outcome = { order_id: number; status: Order["status"] };

/** What a user's channel takes (the UserChannel's RPC). */
export type Channel = { publishAll(messages: ServerMessage[]): Promise<number> };

/**
 * The last order's result, then one balance notice: the page reloads its lists once. Then the
 * notification centre's change (the settlement wrote an `orders_settled` notice): without a
 * count, which the hub does not read per owner; the page asks for it.
 */
export function outcomeNotices(outcomes: readonly Outcome[]): ServerMessage[] {
  const last = outcomes[outcomes.length - 1];
  return [
    { type: "order", order_id: last.order_id, status: last.status },
    { type: "balance", reason: "trade" },
    { type: "notice" },
  ];
}

/** Tells the user at `channelOf(user_id)` about their settled orders. */
export async function notifyOwner(channelOf: (user_id: number) => Channel, user_id: number, outcomes: readonly Outcome[]): Promise<void> {
  await channelOf(user_id).publishAll(outcomeNotices(outcomes));
}
