import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkText, clampLimit, CLIENT_MESSAGE_ID_RE, deliveryState, MAX_TEXT_CHARS, previewOf, rateCheck } from "../../../worker/domain/service/rules";
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
  it("clients may send typing, receipts and ping; nothing else", () => {
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
  });
});
