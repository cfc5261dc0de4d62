import type { NotificationParams } from "./kinds";

/** One settled order as the notice needs it. */
export type SettledOrder = { id: number; user_id: number; stake_micro: number; payout_micro: number };

export type SettledNotice = { user_id: number; params: NotificationParams; dedupe_key: string };

/**
 * One `orders_settled` notice per user for a settlement batch, however many of their orders it
 * settled: the count, the net (payouts minus stakes, signed micro-units as a string) and the
 * first order (lowest id, which the page opens). The first order names the notice: an order
 * settles once, so its batch is the only one that can write this key.
 */
export function settledNotices(orders: readonly SettledOrder[]): SettledNotice[] {
  const by_user = new Map<number, { count: number; net: number; first: number }>();
  for (const o of orders) {
    const u = by_user.get(o.user_id) ?? { count: 0, net: 0, first: o.id };
    by_user.set(o.user_id, { count: u.count + 1, net: u.net + o.payout_micro - o.stake_micro, first: Math.min(u.first, o.id) });
  }
  return [...by_user].map(([user_id, u]) => ({
    user_id,
    params: { count: u.count, net_micro: String(u.net), order_id: u.first },
    dedupe_key: `orders:${u.first}:settled`,
  }));
}
