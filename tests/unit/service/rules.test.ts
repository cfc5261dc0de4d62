import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkSend, checkText, clampLimit, CLIENT_MESSAGE_ID_RE, deliveryState, MAX_TEXT_CHARS, MESSAGE_ID_SPAN, nextMessageId, previewOf, rateCheck } from "../../../worker/domain/service/rules";
import { parseServiceClientMessage, ServerMessage } from "../../../durable-objects/protocol";

describe("service text", () => {
  it("trims, refuses blank, counts characters as people do (an emoji is one)", () => {
    expect(checkText("  hi \n")).toEqual({ status: "ok", text: "hi" });
    expect(checkText(" \n\t ")).toEqual({ status: "empty" });
    expect(checkText("😀".repeat(MAX_TEXT_CHARS)).status).toBe("ok");
    expect(checkText("😀".repeat(MAX_TEXT_CHARS + 1)).status).toBe("too_long");
    expect(checkText("a".repeat(MAX_TEXT_CHARS + 1)).status).toBe("too_long");
  });

  it("whatever the input, an accepted text is trimmed, non-empty and within the limit", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2100, unit: "grapheme" }), (s) => {
        const r = checkText(s);
        if (r.status === "ok") {
          expect(r.text).toBe(r.text.trim());
          expect(r.text.length).toBeGreaterThan(0);
          expect([...r.text].length).toBeLessThanOrEqual(MAX_TEXT_CHARS);
        }
      }),
    );
  });

  it("previews are one line of at most 80 characters; a picture has none (the console names it)", () => {
    expect(previewOf("a\n\nb")).toBe("a b");
    expect([...previewOf("x".repeat(500))]).toHaveLength(80);
    expect(previewOf(null)).toBe("");
  });
});

describe("service rate limit", () => {
  it("20 in a minute pass; the 21st waits until the oldest leaves the window", () => {
    expect(rateCheck({ count: 19, oldest_ms: 1_000 }, 2_000)).toEqual({ status: "ok" });
    expect(rateCheck({ count: 20, oldest_ms: 1_000 }, 2_000)).toEqual({ status: "rate_limited", retry_after_ms: 59_000 });
    expect(rateCheck({ count: 25, oldest_ms: 1_000 }, 60_999)).toEqual({ status: "rate_limited", retry_after_ms: 1 });
  });
});

describe("delivery state", () => {
  it("read beats delivered beats sent, by the peer's progress", () => {
    expect(deliveryState(5, { delivered_id: 0, read_id: 0 })).toBe("sent");
    expect(deliveryState(5, { delivered_id: 5, read_id: 4 })).toBe("delivered");
    expect(deliveryState(5, { delivered_id: 5, read_id: 5 })).toBe("read");
    // Reading implies delivery even if the delivered mark lags.
    expect(deliveryState(5, { delivered_id: 0, read_id: 9 })).toBe("read");
  });
});

describe("client message ids and pages", () => {
  it("8..64 of letters, digits, _ and -", () => {
    expect(CLIENT_MESSAGE_ID_RE.test("abcdefgh")).toBe(true);
    expect(CLIENT_MESSAGE_ID_RE.test("abc-def_12345678")).toBe(true);
    expect(CLIENT_MESSAGE_ID_RE.test("short")).toBe(false);
    expect(CLIENT_MESSAGE_ID_RE.test("x".repeat(65))).toBe(false);
    expect(CLIENT_MESSAGE_ID_RE.test("has space1")).toBe(false);
  });

  it("history pages default to 30 and never exceed 50", () => {
    expect(clampLimit(undefined)).toBe(30);
    expect(clampLimit(10)).toBe(10);
    expect(clampLimit(500)).toBe(50);
  });
});

describe("service wire protocol", () => {
  it("clients may send messages, typing, receipts and ping; nothing else", () => {
    expect(parseServiceClientMessage(JSON.stringify({ type: "send", client_message_id: "abcdefgh", text: "hi" }))).toEqual({ type: "send", client_message_id: "abcdefgh", text: "hi" });
    expect(parseServiceClientMessage(JSON.stringify({ type: "send", text: "no id" }))).toBeNull();
    expect(parseServiceClientMessage(JSON.stringify({ type: "typing", typing: true }))).toEqual({ type: "typing", typing: true });
    expect(parseServiceClientMessage(JSON.stringify({ type: "read", state: "read", up_to_id: 3 }))).toEqual({ type: "read", state: "read", up_to_id: 3 });
    expect(parseServiceClientMessage(JSON.stringify({ type: "read", state: "seen", up_to_id: 3 }))).toBeNull();
    expect(parseServiceClientMessage(JSON.stringify({ type: "read", state: "read", up_to_id: -1 }))).toBeNull();
    expect(parseServiceClientMessage(JSON.stringify({ type: "message", text: "hi" }))).toBeNull();
    expect(parseServiceClientMessage("not json")).toBeNull();
  });

  it("server messages for the chat validate", () => {
    const message = { id: 1, conversation_id: 2, client_message_id: null, author: "system", operator_name: null, text: "closed", image_url: null, created_at_ms: 3, state: "sent" };
    expect(ServerMessage.safeParse({ type: "message", message }).success).toBe(true);
    expect(ServerMessage.safeParse({ type: "message", message: { ...message, author: "admin" } }).success).toBe(false);
    expect(ServerMessage.safeParse({ type: "service", unread: 2 }).success).toBe(true);
    expect(ServerMessage.safeParse({ type: "send_error", client_message_id: "abcdefgh", error: "service_rate_limited", msg: "slow down", retry_after_ms: 900 }).success).toBe(true);
  });
});

describe("message ids handed out by the conversation's object", () => {
  it("each conversation counts up in its own range, above every id written before", () => {
    expect(nextMessageId(3, 0)).toBe(3 * MESSAGE_ID_SPAN + 1);
    // Old autoincrement ids (small) do not pull the range down.
    expect(nextMessageId(3, 57)).toBe(3 * MESSAGE_ID_SPAN + 1);
    expect(nextMessageId(3, 3 * MESSAGE_ID_SPAN + 9)).toBe(3 * MESSAGE_ID_SPAN + 10);
    // Two conversations never meet, and ids stay exact integers far out.
    expect(nextMessageId(4, 0)).toBeGreaterThan(nextMessageId(3, 3 * MESSAGE_ID_SPAN + 1000));
    expect(Number.isSafeInteger(nextMessageId(2 ** 33 - 1, (2 ** 33 - 1) * MESSAGE_ID_SPAN + MESSAGE_ID_SPAN - 2))).toBe(true);
  });
});

describe("a message's shape before it is ordered (socket and REST alike)", () => {
  it("needs a client id and exactly one of a text and a picture id", () => {
    expect(checkSend({ client_message_id: "abcdefgh", text: "  hi  " })).toEqual({ status: "ok", text: "hi", upload_id: null });
    expect(checkSend({ client_message_id: "abc", text: "hi" })).toEqual({ status: "client_id_invalid" });
    expect(checkSend({ client_message_id: "abcdefgh", text: "   " })).toEqual({ status: "empty" });
    expect(checkSend({ client_message_id: "abcdefgh", text: "x".repeat(2001) })).toEqual({ status: "too_long" });
    const pic = "0123456789abcdef0123456789abcdef";
    expect(checkSend({ client_message_id: "abcdefgh", upload_id: pic })).toEqual({ status: "ok", text: null, upload_id: pic });
    expect(checkSend({ client_message_id: "abcdefgh", upload_id: pic, text: "and words" })).toEqual({ status: "both" });
    expect(checkSend({ client_message_id: "abcdefgh", upload_id: "../etc" })).toEqual({ status: "picture_unknown" });
  });
});
