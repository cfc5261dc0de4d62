/**
 * Bench-only Worker (never deployed, never part of the app): places orders as the QuoteHub does
 * (each checked by `checkOrder`, written `ORDER_GROUP_MAX` at a time by `writeOrders`: the hub's
 * group commit) inside workerd on the bench's persisted D1, for the settlement-burst bench
 * (settlement-burst.ts). One order at a time (`placeOrder`) costs ~5 ms each here: 100,000
 * would take minutes before the burst even starts.
 *
 * Why not `getPlatformProxy` from Node, as for the users and their money: through the proxy,
 * every D1 statement costs several *synchronous* round trips (prepare, bind, property reads of
 * each new remote stub), ~50 ms per placeOrder on this machine, i.e. ~8 minutes for 10,000; and
 * concurrent use trips an assertion in miniflare's synchronous fetcher. Here the same function
 * runs next to the database, with the same inputs (fixed `now_ms` and `latest`).
 *
 * Started by settlement-burst.ts with `wrangler dev tests/bench/burst-worker.ts --persist-to <state>`
 * (the project's wrangler.toml, so the same D1 database), on 127.0.0.1 only, and stopped
 * before the app's own server starts on that state.
 */
import { getDb } from "../../worker/db/client";
import { writeOrders } from "../../worker/domain/trades/order-writes";
import { writeEntries } from "../../worker/domain/trades/entry-writes";
import { checkOrder, type CheckedOrder, type PlaceOrder } from "../../worker/domain/trades/order-check";
import { getProduct } from "../../worker/domain/trades/products";
import { ORDER_GROUP_MAX } from "../../durable-objects/quotes/order-intake";
import type { Tick } from "../../worker/domain/trades/settlement";
import type { Env } from "../../worker/env";

// wrangler.toml binds these classes; exporting them keeps the config valid. Nothing here uses them.
export { UserChannel } from "../../durable-objects/user-channel/user-channel";
export { QuoteHub } from "../../durable-objects/quotes/quote-hub";
export { ServiceConversation } from "../../durable-objects/service/conversation";
export { ServiceInbox } from "../../durable-objects/service/inbox";
export { LogSequencer } from "../../durable-objects/transparency/log-sequencer";
export { QuoteRelay } from "../../durable-objects/quotes/quote-relay";

export type PlaceBatch = { inputs: PlaceOrder[]; latest: Tick; now_ms: number; concurrency: number };
export type PlaceBatchResult = { statuses: Record<string, number>; ms: number };

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === "/api/health") return Response.json({ code: 1, msg: "ok", data: null });
    if (pathname !== "/bench/place" || request.method !== "POST") return new Response("not found", { status: 404 });
    const body = (await request.json()) as PlaceBatch;
    const db = getDb(env.DB);
    const statuses: Record<string, number> = {};
    const count = (status: string) => (statuses[status] = (statuses[status] ?? 0) + 1);
    const start = Date.now();
    // One market per batch: its product read once, every order checked against it.
    const product = await getProduct(db, body.inputs[0]?.product_id ?? 0);
    const groups: CheckedOrder[][] = [[]];
    for (const input of body.inputs) {
      const checked = checkOrder(product, input, body.latest, body.now_ms);
      if (checked.status !== "ok") {
        count(checked.status);
        continue;
      }
      if (groups[groups.length - 1].length >= ORDER_GROUP_MAX) groups.push([]);
      groups[groups.length - 1].push(checked.order);
    }
    let next = 0;
    const worker = async () => {
      for (;;) {
        const group = groups[next++];
        if (!group) return;
        try {
          for (const r of await writeOrders(db, group)) {
            count(r.status);
            // What the hub's next beat does (decision 123): the entry is the first tick after acceptance.
            if (r.status === "ok" && !r.replayed) entries.push({ id: r.order.id, tick: { ts_ms: body.now_ms + 1, price_e8: body.latest.price_e8 } });
          }
        } catch (err) {
          for (let k = 0; k < group.length; k++) count(`error: ${String((err as Error)?.message ?? err).slice(0, 80)}`);
        }
      }
    };
    const entries: { id: number; tick: Tick }[] = [];
    await Promise.all(Array.from({ length: Math.max(1, Math.min(body.concurrency, 32)) }, worker));
    await writeEntries(db, entries);
    // Date.now() in workerd advances with I/O, so this is the batch's wall time.
    return Response.json({ statuses, ms: Date.now() - start } satisfies PlaceBatchResult);
  },
};
