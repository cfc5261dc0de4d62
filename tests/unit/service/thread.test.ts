import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { askedServiceUnread, readServiceUnread, serviceChannelConnected, serviceUnreadMark, setServiceUnread } from "../../../app/lib/service-unread";
import { charsLeft, deliveryOf, statusFromMessages, emptyThread, lastPeerId, parseContextParam, threadReducer, type Pending, type ServiceMessage, type Thread } from "../../../app/lib/service";

/** The chat page's thread: whatever order and however often messages arrive, each shows once. */

function msg(id: number, over: Partial<ServiceMessage> = {}): ServiceMessage {
  return { id, conversation_id: 1, client_message_id: null, author: "operator", operator_name: "operator", text: `m${id}`, image_url: null, created_at_ms: 1_000 + id, state: "sent", ...over };
}
function pending(client_message_id: string): Pending {
  return { client_message_id, text: "hi", image_url: null, file: null, created_at_ms: 5, failed: null };
}
const start = (): Thread => emptyThread(null);

describe("merging messages", () => {
  it("keeps one copy of a message that arrives twice (socket push, then catch-up)", () => {
    let t = threadReducer(start(), { type: "merge", messages: [msg(1), msg(2)] });
    t = threadReducer(t, { type: "merge", messages: [msg(2), msg(3)] });
    expect(t.messages.map((m) => m.id)).toEqual([1, 2, 3]);
  });

  it("an earlier page goes above, in id order, and says whether there is more", () => {
    let t = emptyThread(null, [msg(31), msg(32)], true);
    t = threadReducer(t, { type: "merge", messages: [msg(29), msg(30)], has_more: false });
    expect(t.messages.map((m) => m.id)).toEqual([29, 30, 31, 32]);
    expect(t.has_more).toBe(false);
  });

  it("a socket push does not change whether earlier messages exist", () => {
    const t = threadReducer(emptyThread(null, [msg(5)], true), { type: "merge", messages: [msg(6)] });
    expect(t.has_more).toBe(true);
  });

  it("the server's copy replaces our optimistic bubble (matched by client_message_id)", () => {
    let t = threadReducer(start(), { type: "pending", pending: pending("abcdefgh1") });
    t = threadReducer(t, { type: "pending", pending: pending("abcdefgh2") });
    t = threadReducer(t, { type: "merge", messages: [msg(7, { author: "visitor", client_message_id: "abcdefgh1" })] });
    expect(t.pending.map((p) => p.client_message_id)).toEqual(["abcdefgh2"]);
    expect(t.messages).toHaveLength(1);
  });

  it("the same bubble is not queued twice", () => {
    let t = threadReducer(start(), { type: "pending", pending: pending("abcdefgh1") });
    t = threadReducer(t, { type: "pending", pending: pending("abcdefgh1") });
    expect(t.pending).toHaveLength(1);
  });

  it("a failed bubble keeps its id for the retry", () => {
    let t = threadReducer(start(), { type: "pending", pending: pending("abcdefgh1") });
    t = threadReducer(t, { type: "failed", client_message_id: "abcdefgh1", error: "Too many messages" });
    expect(t.pending[0]).toMatchObject({ client_message_id: "abcdefgh1", failed: "Too many messages" });
    t = threadReducer(t, { type: "retry", client_message_id: "abcdefgh1" });
    expect(t.pending[0]).toMatchObject({ client_message_id: "abcdefgh1", failed: null });
    t = threadReducer(t, { type: "discard", client_message_id: "abcdefgh1" });
    expect(t.pending).toEqual([]);
  });

  it("any interleaving of pages, pushes and repeats gives each id once, ascending", () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer({ min: 1, max: 60 }), { maxLength: 12 }), { maxLength: 12 }), (batches) => {
        let t = start();
        for (const ids of batches) t = threadReducer(t, { type: "merge", messages: ids.map((id) => msg(id)) });
        const expected = [...new Set(batches.flat())].sort((a, b) => a - b);
        expect(t.messages.map((m) => m.id)).toEqual(expected);
      }),
    );
  });
});

describe("delivery ticks", () => {
  it("move forward with receipts and never back", () => {
    let t = emptyThread(null, [msg(1, { author: "visitor" }), msg(2, { author: "visitor" })]);
    expect(deliveryOf(t.messages[1], t)).toBe("sent");
    t = threadReducer(t, { type: "peer", delivered_id: 2 });
    expect(deliveryOf(t.messages[1], t)).toBe("delivered");
    t = threadReducer(t, { type: "peer", read_id: 1 });
    expect(deliveryOf(t.messages[0], t)).toBe("read");
    expect(deliveryOf(t.messages[1], t)).toBe("delivered");
    t = threadReducer(t, { type: "peer", delivered_id: 1 });
    expect(t.peer_delivered_id).toBe(2);
  });

  it("the server's state on load counts too", () => {
    const t = emptyThread(null, [msg(9, { author: "visitor", state: "read" })]);
    expect(deliveryOf(t.messages[0], t)).toBe("read");
  });

  it("read up to: the newest message of the other side", () => {
    const t = emptyThread(null, [msg(1), msg(2, { author: "visitor" }), msg(3), msg(4, { author: "visitor" })]);
    expect(lastPeerId(t, "visitor")).toBe(3);
    expect(lastPeerId(t, "operator")).toBe(4);
  });
});

describe("the status the messages tell", () => {
  const system = (id: number, text: string) => msg(id, { author: "system", text, operator_name: null });
  it("closed after a closing note, open again after a reopening note or a visitor's message", () => {
    expect(statusFromMessages([])).toBeNull();
    expect(statusFromMessages([msg(1), system(2, "closed")])).toBe("closed");
    expect(statusFromMessages([system(2, "closed"), system(3, "reopened")])).toBe("open");
    expect(statusFromMessages([system(2, "closed"), msg(3, { author: "visitor" })])).toBe("open");
    expect(statusFromMessages([msg(1)])).toBe("open");
  });
});

describe("page helpers", () => {
  it("reads only well-formed contexts from the URL", () => {
    expect(parseContextParam("order:123")).toEqual({ kind: "order", ref_id: 123 });
    expect(parseContextParam("withdrawal:9")).toEqual({ kind: "withdrawal", ref_id: 9 });
    for (const bad of [null, "", "order:", "order:0", "order:-1", "user:5", "order:1x", "order:1234567890123"]) expect(parseContextParam(bad)).toBeNull();
  });

  it("counts down only near the 2,000-character limit", () => {
    expect(charsLeft("a".repeat(1799))).toBeNull();
    expect(charsLeft("a".repeat(1800))).toBe(200);
    expect(charsLeft(`  ${"a".repeat(2000)}  `)).toBe(0);
    expect(charsLeft("a".repeat(2003))).toBe(-3);
  });
});

describe("the me tab's unread count", () => {
  it("an answer asked before a live count arrived does not overwrite it; one asked after does", () => {
    const mark = serviceUnreadMark();
    setServiceUnread(1); // an operator wrote while the question was on its way
    askedServiceUnread(0, mark);
    expect(readServiceUnread().unread).toBe(1);
    askedServiceUnread(3, serviceUnreadMark());
    expect(readServiceUnread().unread).toBe(3);
  });

  it("each user-channel connection asks again", () => {
    const before = readServiceUnread().generation;
    serviceChannelConnected();
    expect(readServiceUnread().generation).toBe(before + 1);
  });
});
