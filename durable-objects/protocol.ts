/**
 * The one wire protocol between the Durable Objects and the pages. Every message is JSON,
 * validated with zod on both ends, so a page never acts on a malformed message and a Durable
 * Object never trusts one.
 */
import { z } from "zod";

/** Server → client. */
export const ServerMessage = z.discriminatedUnion("type", [
  /** Sent on connect: lets the page align its clock (countdowns use server time). */
  z.object({ type: z.literal("hello"), server_time_ms: z.number().int() }),
  z.object({ type: z.literal("pong"), server_time_ms: z.number().int() }),
  /** The user's balances changed: the page reloads them from the API (the ledger). */
  z.object({ type: z.literal("balance"), reason: z.string().max(64) }),
  /** One of the user's orders settled (user channel). */
  z.object({ type: z.literal("order"), order_id: z.number().int(), status: z.enum(["open", "won", "lost", "tie", "void"]) }),
  /** A price tick (quote channel). `price` is an exact decimal string; `ts` in ms. */
  z.object({ type: z.literal("tick"), symbol: z.string().max(20), price: z.string().max(32), ts: z.number().int() }),
  /** The 24h quote block (quote channel), sent on connect and every few seconds. */
  z.object({
    type: z.literal("quote"),
    symbol: z.string().max(20),
    price: z.string().max(32),
    open: z.string().max(32),
    high: z.string().max(32),
    low: z.string().max(32),
    volume: z.string().max(32),
    change_pct: z.string().max(16),
    ts: z.number().int(),
    simulated: z.boolean(),
  }),
]);
export type ServerMessage = z.infer<typeof ServerMessage>;

/**
 * Client → server. `changed`: this page just changed the user's money (it placed an order);
 * the user's channel tells the user's other open pages to reload their balance. Placing an
 * order is the hottest money path, so the page that already knows tells its siblings, instead
 * of the server calling the user's channel for every order.
 */
export const ClientMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ping") }),
  z.object({ type: z.literal("changed"), reason: z.enum(["trade"]) }),
]);
export type ClientMessage = z.infer<typeof ClientMessage>;

export function parseServerMessage(raw: unknown): ServerMessage | null {
  return parseJson(raw, ServerMessage);
}

export function parseClientMessage(raw: unknown): ClientMessage | null {
  return parseJson(raw, ClientMessage);
}

/** A JSON text of at most `max_length` characters, checked by `schema`; null when it is anything else. */
export function parseJson<T>(raw: unknown, schema: z.ZodType<T>, max_length = 16_384): T | null {
  if (typeof raw !== "string" || raw.length > max_length) return null;
  try {
    const r = schema.safeParse(JSON.parse(raw));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

export function encode(message: ServerMessage | ClientMessage): string {
  return JSON.stringify(message);
}
