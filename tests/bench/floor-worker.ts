/**
 * Bench-only Worker (never deployed, never part of the app): the floor of placing an order on
 * this stack, for `npm run bench -- orders` (orders.ts). It does the least the same work can
 * do here: a bare Worker that reads the token and the JSON body and hands them to ONE object,
 * which knows the sessions it has seen (one D1 read the first time) and writes the orders
 * arriving while its previous write is in flight in ONE D1 batch of three hand-written set
 * statements (floor-statements.ts: the order rows and their ledger transfers, the same rows the
 * app writes) with the app's group size (`ORDER_GROUP_MAX`).
 *
 * Its transfers' leaves go into the transparency log as the app's do (decision 168): after each
 * group it wakes the log's sequencer (the app's own LogSequencer: a leaf's text, hashes, tiles
 * and signed checkpoint are the log's format, so there is no other way to make them), within
 * the same 100 ms the app's hub does. With `FLOOR_LOG = "off"` it leaves its leaves waiting in
 * the inbox: the bare stack, which the bench reports beside it.
 *
 * What it leaves out is what the floor does not need: languages, the envelope's words, the
 * product's rules beyond the duration, exposure, the live price (the order's entry is the
 * quote it was sent with, stamped now). `/api/health` is a bare Worker's answer;
 * `/bench/log-backlog` says how many leaves wait in the log's inbox.
 *
 * The object is exported as `QuoteHub` so that wrangler.toml's bindings hold unchanged; the
 * app's other classes are exported only to keep that configuration valid.
 */
import { DurableObject } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { getDb } from "../../worker/db/client";
import { invocationDb } from "../../worker/db/limits";
import { sessions } from "../../worker/db/schema";
import { hashSessionToken } from "../../worker/domain/identity/session";
import { checkOrder, type CheckedOrder, type PlaceResult } from "../../worker/domain/trades/order-check";
import { getProduct, type ProductWithDurations } from "../../worker/domain/trades/products";
import { ORDER_GROUP_MAX } from "../../durable-objects/quotes/order-intake";
import type { Env } from "../../worker/env";
import { writeFloorGroup } from "./floor-statements";
import { LogPokes } from "../../durable-objects/quotes/log-pokes";
import { logBacklog } from "../../worker/observability/readiness";

export { UserChannel } from "../../durable-objects/user-channel/user-channel";
export { ServiceConversation } from "../../durable-objects/service/conversation";
export { ServiceInbox } from "../../durable-objects/service/inbox";
export { LogSequencer } from "../../durable-objects/transparency/log-sequencer";
export { QuoteRelay } from "../../durable-objects/quotes/quote-relay";

type FloorOrder = { token: string; product_id: number; direction: "up" | "down"; amount: string; seconds: number; quote_price: string; client_order_id: string };
type Pending = { order: CheckedOrder; done: (r: PlaceResult | Error) => void };

export class QuoteHub extends DurableObject<Env> {
  private readonly users = new Map<string, number>();
  private readonly products = new Map<number, ProductWithDurations | null>();
  private pending: Pending[] = [];
  private writing = false;
  private readonly logPokes = new LogPokes(() => this.env, (work) => this.ctx.waitUntil(work));

  async place(o: FloorOrder): Promise<{ status: string; id?: number }> {
    const user_id = await this.userOf(o.token);
    if (user_id === null) return { status: "unauthorized" };
    const product = await this.productOf(o.product_id);
    const now_ms = Date.now();
    const price_e8 = Math.round(Number(o.quote_price) * 1e8);
    const input = { user_id, product_id: o.product_id, direction: o.direction, stake_micro: Math.round(Number(o.amount) * 1e6), seconds: o.seconds, quote_price_e8: price_e8, request_key: `client:${o.client_order_id}` };
    const checked = checkOrder(product, input, { ts_ms: now_ms, price_e8 }, now_ms);
    if (checked.status !== "ok") return { status: checked.status };
    const r = await new Promise<PlaceResult | Error>((done) => {
      this.pending.push({ order: checked.order, done });
      if (!this.writing) void this.writePending();
    });
    if (r instanceof Error) throw r;
    return r.status === "ok" ? { status: "ok", id: r.order.id } : { status: r.status };
  }

  private async userOf(token: string): Promise<number | null> {
    const hash = hashSessionToken(token);
    const known = this.users.get(hash);
    if (known !== undefined) return known;
    const row = await getDb(this.env.DB).query.sessions.findFirst({ where: and(eq(sessions.token_hash, hash), eq(sessions.kind, "user")) });
    if (!row || row.revoked_at_ms !== null) return null;
    this.users.set(hash, row.subject_id);
    return row.subject_id;
  }

  private async productOf(id: number): Promise<ProductWithDurations | null> {
    if (!this.products.has(id)) this.products.set(id, await getProduct(getDb(this.env.DB), id));
    return this.products.get(id) ?? null;
  }

  private async writePending() {
    this.writing = true;
    try {
      while (this.pending.length > 0) {
        const group = this.pending.splice(0, ORDER_GROUP_MAX);
        try {
          const results = await writeFloorGroup(invocationDb(this.env), group.map((g) => g.order));
          // As the app's hub: the group's leaves are appended within 100 ms (log-pokes.ts).
          if ((this.env as { FLOOR_LOG?: string }).FLOOR_LOG !== "off") this.logPokes.soon();
          group.forEach((g, i) => g.done(results[i]));
        } catch (err) {
          for (const g of group) g.done(err instanceof Error ? err : new Error(String(err)));
        }
      }
    } finally {
      this.writing = false;
    }
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === "/api/health") return Response.json({ code: 1, msg: "ok", data: { time_ms: Date.now() } });
    if (pathname === "/bench/log-backlog") return Response.json({ code: 1, msg: "ok", data: { waiting: (await logBacklog(getDb(env.DB))).waiting } });
    if (pathname !== "/api/order/addorder" || request.method !== "POST") return new Response("not found", { status: 404 });
    const body = (await request.json()) as Omit<FloorOrder, "token">;
    const hub = env.QUOTE_HUB.get(env.QUOTE_HUB.idFromName("floor")) as unknown as DurableObjectStub<QuoteHub>;
    const r = await hub.place({ ...body, token: request.headers.get("token") ?? "" });
    return Response.json(r.status === "ok" ? { code: 1, msg: "ok", data: { id: r.id } } : { code: 0, msg: r.status, data: { error: r.status } });
  },
};
