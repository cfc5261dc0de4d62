import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { service_messages } from "../../../worker/db/schema";
import { writeMessageGroups, type MessageRow } from "../../../worker/domain/service/messages";
import { MESSAGE_ID_SPAN } from "../../../worker/domain/service/rules";
import { db, seed } from "../helpers";
import { newGuest, opSend, send } from "./helpers";

beforeAll(() => seed());

/** A row as a conversation's object orders it: the id from the conversation's own range. */
function row(conversation_id: number, n: number, author: "visitor" | "operator", text: string, operator_id: number | null = null): MessageRow {
  return { id: conversation_id * MESSAGE_ID_SPAN + 1000 + n, conversation_id, author, client_message_id: `g-${conversation_id}-${n}`, operator_id, operator_name: null, text, upload_id: null, created_at_ms: Date.now() + n };
}

const stored = (conversation_id: number) => db.select().from(service_messages).where(eq(service_messages.conversation_id, conversation_id));

describe("the service writer's group commit (decision 086)", () => {
  it("writes several conversations in one batch and answers each its own conversation and unread counts", async () => {
    const a = await newGuest();
    const b = await newGuest();
    const groups = [
      { conversation_id: a.conversation_id, rows: Array.from({ length: 30 }, (_, i) => row(a.conversation_id, i, "visitor", `a${i}`)) },
      { conversation_id: b.conversation_id, rows: [row(b.conversation_id, 0, "visitor", "b0"), row(b.conversation_id, 1, "operator", "b1", (await db.query.operators.findFirst())!.id)] },
    ];
    const written = await writeMessageGroups(db, groups);
    expect(written.map((w) => w.conversation?.id)).toEqual([a.conversation_id, b.conversation_id]);
    expect(written[0].unread).toEqual({ operator: 30, visitor: 0 });
    expect(written[1].unread).toEqual({ operator: 1, visitor: 1 });
    expect(written[0].conversation?.last_message_preview).toBe("a29");
    expect(await stored(a.conversation_id)).toHaveLength(30);
    // A retried commit (the caller's alarm after a lost answer) writes nothing twice.
    await writeMessageGroups(db, groups);
    expect(await stored(a.conversation_id)).toHaveLength(30);
    expect(await stored(b.conversation_id)).toHaveLength(2);
  });

  it("messages sent at once in forty conversations all reach D1, each once, in its conversation's order", async () => {
    const guests = await Promise.all(Array.from({ length: 40 }, () => newGuest()));
    await Promise.all(guests.map(async (g, i) => {
      for (let k = 0; k < 3; k++) expect((await send(g.caller, g.conversation_id, `c${i}-${k}`)).code).toBe(1);
    }));
    await Promise.all(guests.slice(0, 5).map((g) => opSend(g.conversation_id, "reply")));
    for (const [i, g] of guests.entries()) {
      const rows = (await stored(g.conversation_id)).sort((x, y) => x.id - y.id);
      expect(rows.filter((r) => r.author === "visitor").map((r) => r.text)).toEqual([`c${i}-0`, `c${i}-1`, `c${i}-2`]);
      expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    }
  });
});
