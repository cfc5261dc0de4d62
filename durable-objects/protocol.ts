/**
 * The one wire protocol between the Durable Objects and the pages. Every message is JSON,
 * validated with zod on both ends, so a page never acts on a malformed message and a Durable
 * Object never trusts one. Written with zod/mini (functions instead of methods): every page
 * loads this file through its sockets, and zod/mini is a few kilobytes where zod is ~90 KB gzip.
 */
import * as z from "zod/mini";

/** Strings and integers as the messages use them. */
const str = (max: number) => z.string().check(z.maxLength(max));
const int = () => z.int();

/** A customer-service message as both sides see it (docs/customer-service.md). */
export const ServiceMessage = z.object({
  id: int(),
  conversation_id: int(),
  client_message_id: z.nullable(str(64)),
  author: z.enum(["visitor", "operator", "system"]),
  operator_name: z.nullable(str(64)),
  text: z.nullable(str(4000)),
  image_url: z.nullable(str(64)),
  created_at_ms: int(),
  state: z.enum(["sent", "delivered", "read"]),
});
export type ServiceMessage = z.infer<typeof ServiceMessage>;
const ServiceSide = z.enum(["visitor", "operator"]);

/** Server → client. */
export const ServerMessage = z.discriminatedUnion("type", [
  /** Sent on connect: lets the page align its clock (countdowns use server time). */
  z.object({ type: z.literal("hello"), server_time_ms: int() }),
  z.object({ type: z.literal("pong"), server_time_ms: int() }),
  /** The user's balances changed: the page reloads them from the API (the ledger). */
  z.object({ type: z.literal("balance"), reason: str(64) }),
  /** One of the user's orders settled (user channel). */
  z.object({ type: z.literal("order"), order_id: int(), status: z.enum(["open", "won", "lost", "tie", "void"]) }),
  /** A price tick (quote channel). `price` is an exact decimal string; `ts` in ms. */
  z.object({ type: z.literal("tick"), symbol: str(20), price: str(32), ts: int() }),
  /** The 24h quote block (quote channel), sent on connect and every few seconds. */
  z.object({
    type: z.literal("quote"),
    symbol: str(20),
    price: str(32),
    open: str(32),
    high: str(32),
    low: str(32),
    volume: str(32),
    change_pct: str(16),
    ts: int(),
    simulated: z.boolean(),
  }),
  /** Customer service (conversation channel): a new message, from either side. */
  z.object({ type: z.literal("message"), message: ServiceMessage }),
  /** How far one side got: received (delivered) or read, up to a message id. */
  z.object({ type: z.literal("read"), reader: ServiceSide, state: z.enum(["delivered", "read"]), up_to_id: int() }),
  z.object({ type: z.literal("typing"), from: ServiceSide, typing: z.boolean() }),
  /** Conversation channel, to the sender only: its `send` was refused (`error` is the key without `errors.`, `msg` its words). */
  z.object({
    type: z.literal("send_error"),
    client_message_id: str(64),
    error: str(64),
    msg: str(500),
    retry_after_ms: z.optional(int()),
    max: z.optional(int()),
  }),
  /** Operators' inbox channel: a conversation changed. */
  z.object({
    type: z.literal("inbox"),
    conversation_id: int(),
    unread: int(),
    last_message_at_ms: z.nullable(int()),
    status: z.enum(["open", "closed"]),
    assigned_operator_id: z.nullable(int()),
  }),
  /** User channel: an operator wrote; `unread` is the user's unread count (the me-tab badge). */
  z.object({ type: z.literal("service"), unread: int() }),
  /**
   * User channel: the notification centre changed (a new notice, or notices read elsewhere).
   * `unread` is the centre's new count, `badge` what the me tab adds to the chat's unread count
   * (worker/domain/notifications/centre.ts); a settlement leaves both out (the hub does not count
   * per owner) and the page asks the API.
   */
  z.object({ type: z.literal("notice"), unread: z.optional(int()), badge: z.optional(int()) }),
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
  z.object({ type: z.literal("send"), client_message_id: str(64), text: z.optional(str(16_000)), upload_id: z.optional(str(64)) }),
  z.object({ type: z.literal("typing"), typing: z.boolean() }),
  z.object({ type: z.literal("read"), state: z.enum(["delivered", "read"]), up_to_id: z.int().check(z.gte(0), z.lte(Number.MAX_SAFE_INTEGER)) }),
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

/** The close code of a socket whose session ended (signed out, or ended by its user or an operator). */
export const SESSION_ENDED_CLOSE = 4401;

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
export function parseJson<T>(raw: unknown, schema: z.core.$ZodType<T>, max_length = PAGE_FRAME_MAX): T | null {
  if (typeof raw !== "string" || raw.length > max_length) return null;
  try {
    const r = z.safeParse(schema, JSON.parse(raw));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

export function encode(message: ServerMessage | ClientMessage | ServiceClientMessage): string {
  return JSON.stringify(message);
}
