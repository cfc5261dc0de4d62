/**
 * The one wire protocol between the Durable Objects and the pages. Every message is JSON,
 * validated with zod on both ends, so a page never acts on a malformed message and a Durable
 * Object never trusts one.
 */
import { z } from "zod";

/** A customer-service message as both sides see it (docs/customer-service.md). */
export const ServiceMessage = z.object({
  id: z.number().int(),
  conversation_id: z.number().int(),
  client_message_id: z.string().max(64).nullable(),
  author: z.enum(["visitor", "operator", "system"]),
  operator_name: z.string().max(64).nullable(),
  text: z.string().max(4000).nullable(),
  image_url: z.string().max(64).nullable(),
  created_at_ms: z.number().int(),
  state: z.enum(["sent", "delivered", "read"]),
});
export type ServiceMessage = z.infer<typeof ServiceMessage>;
const ServiceSide = z.enum(["visitor", "operator"]);

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
  /** Customer service (conversation channel): a new message, from either side. */
  z.object({ type: z.literal("message"), message: ServiceMessage }),
  /** How far one side got: received (delivered) or read, up to a message id. */
  z.object({ type: z.literal("read"), reader: ServiceSide, state: z.enum(["delivered", "read"]), up_to_id: z.number().int() }),
  z.object({ type: z.literal("typing"), from: ServiceSide, typing: z.boolean() }),
  /** Conversation channel, to the sender only: its `send` was refused (`error` is the key without `errors.`, `msg` its words). */
  z.object({
    type: z.literal("send_error"),
    client_message_id: z.string().max(64),
    error: z.string().max(64),
    msg: z.string().max(500),
    retry_after_ms: z.number().int().optional(),
    max: z.number().int().optional(),
  }),
  /** Operators' inbox channel: a conversation changed. */
  z.object({
    type: z.literal("inbox"),
    conversation_id: z.number().int(),
    unread: z.number().int(),
    last_message_at_ms: z.number().int().nullable(),
    status: z.enum(["open", "closed"]),
    assigned_operator_id: z.number().int().nullable(),
  }),
  /** User channel: an operator wrote; `unread` is the user's unread count (the me-tab badge). */
  z.object({ type: z.literal("service"), unread: z.number().int() }),
  /**
   * User channel: the notification centre changed (a new notice, or notices read elsewhere).
   * `unread` is the centre's new count, `badge` what the me tab adds to the chat's unread count
   * (worker/domain/notifications/centre.ts); a settlement leaves both out (the hub does not count
   * per owner) and the page asks the API.
   */
  z.object({ type: z.literal("notice"), unread: z.number().int().optional(), badge: z.number().int().optional() }),
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

/**
 * Client → conversation channel: messages (`send`: ordered by the conversation's object, echoed
 * to every page of both sides, the sender's echo being its acknowledgement; `send_error` to the
 * sender when refused), the typing indicator and read receipts. The shape is checked here only
 * loosely (the object answers a bad text or client id with `send_error`, like the REST API).
 */
export const ServiceClientMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ping") }),
  z.object({ type: z.literal("send"), client_message_id: z.string().max(64), text: z.string().max(16_000).optional(), upload_id: z.string().max(64).optional() }),
  z.object({ type: z.literal("typing"), typing: z.boolean() }),
  z.object({ type: z.literal("read"), state: z.enum(["delivered", "read"]), up_to_id: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) }),
]);
export type ServiceClientMessage = z.infer<typeof ServiceClientMessage>;

export function parseServiceClientMessage(raw: unknown): ServiceClientMessage | null {
  return parseJson(raw, ServiceClientMessage, SERVICE_FRAME_MAX);
}

export function parseServerMessage(raw: unknown): ServerMessage | null {
  return parseJson(raw, ServerMessage);
}

export function parseClientMessage(raw: unknown): ClientMessage | null {
  return parseJson(raw, ClientMessage);
}

/** The longest frame a page may send: its messages are small JSON. */
export const PAGE_FRAME_MAX = 16_384;
/** A chat frame: a 2,000-character text may take up to 16,000 characters of JSON (escapes). */
export const SERVICE_FRAME_MAX = 40_000;

/**
 * How a socket is closed on a frame that failed to parse: 1009 (message too big) when it was
 * over the limit and so never read, 1003 (unsupported data) for anything else (RFC 6455 7.4.1).
 */
export function refusalClose(raw: unknown, max_length: number): { code: 1003 | 1009; reason: string } {
  const size = typeof raw === "string" ? raw.length : raw instanceof ArrayBuffer ? raw.byteLength : 0;
  return size > max_length ? { code: 1009, reason: "message too big" } : { code: 1003, reason: "unsupported message" };
}

/** A JSON text of at most `max_length` characters, checked by `schema`; null when it is anything else. */
export function parseJson<T>(raw: unknown, schema: z.ZodType<T>, max_length = PAGE_FRAME_MAX): T | null {
  if (typeof raw !== "string" || raw.length > max_length) return null;
  try {
    const r = schema.safeParse(JSON.parse(raw));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

export function encode(message: ServerMessage | ClientMessage | ServiceClientMessage): string {
  return JSON.stringify(message);
}
