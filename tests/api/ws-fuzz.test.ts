/**
 * Bad frames on every WebSocket endpoint (quotes, the user channel, a conversation, the operator
 * inbox): malformed, binary, oversized, `__proto__`-laden and flooding frames. A bad frame closes
 * only its own socket, with 1003 (unsupported) or 1009 (too big); everyone else on the same
 * Durable Object keeps being served.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { PAGE_FRAME_MAX, parseClientMessage, parseServiceClientMessage, SERVICE_FRAME_MAX } from "../../durable-objects/protocol";
import { userCookie } from "../../worker/session-cookie";
import { newUser, page, seed } from "./helpers";
import { cookieOf, newGuest, operatorToken } from "./service/helpers";

type Endpoint = { name: string; path: string; headers: Record<string, string>; max: number; valid: (raw: string) => boolean };

type Sock = { ws: WebSocket; frames: string[]; closed: Promise<number>; waitFor: (pred: (m: any) => boolean, ms?: number) => Promise<any> };

async function open(e: Endpoint): Promise<Sock> {
  const res = await page(e.path, { headers: { upgrade: "websocket", origin: "http://127.0.0.1", ...e.headers } });
  expect(res.status, `${e.name}: upgrade`).toBe(101);
  const ws = res.webSocket!;
  const frames: string[] = [];
  const waiters: { pred: (m: any) => boolean; done: (m: any) => void }[] = [];
  ws.accept();
  const closed = new Promise<number>((r) => ws.addEventListener("close", (ev) => r(ev.code)));
  ws.addEventListener("message", (ev) => {
    const text = typeof ev.data === "string" ? ev.data : "";
    frames.push(text);
    const m = JSON.parse(text);
    for (const w of [...waiters]) if (w.pred(m)) waiters.splice(waiters.indexOf(w), 1), w.done(m);
  });
  const waitFor = (pred: (m: any) => boolean, ms = 5_000) =>
    new Promise<any>((resolve, reject) => {
      const seen = frames.map((f) => JSON.parse(f)).find(pred);
      if (seen) return resolve(seen);
      const t = setTimeout(() => reject(new Error(`${e.name}: nothing matching in ${ms} ms`)), ms);
      waiters.push({ pred, done: (m) => (clearTimeout(t), resolve(m)) });
    });
  return { ws, frames, closed, waitFor };
}

/** A frame no page would send: text of every wrong shape, binary, or too big. */
function badFrame(max: number): fc.Arbitrary<string | ArrayBuffer> {
  return fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.json({ maxDepth: 4 }),
    fc.constantFrom(
      "{not json", "null", "[]", '"ping"', '{"type":"ping"', '{"type":"__proto__"}', '{"__proto__":{"type":"ping"}}',
      '{"type":"send","client_message_id":' + "9".repeat(400) + "}", '{"type":"read","state":"read","up_to_id":1e309}',
      '{"type":"changed","reason":{"toString":1}}', '{"type":"typing","typing":"yes"}',
    ),
    fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => b.buffer as ArrayBuffer),
    fc.integer({ min: max + 1, max: 900_000 }).map((n) => '{"type":"ping","pad":"' + "x".repeat(n) + '"}'),
  );
}

const ping = (s: Sock) => s.ws.send(JSON.stringify({ type: "ping" }));
const isPong = (m: any) => m.type === "pong";

async function endpoints(): Promise<Endpoint[]> {
  await seed();
  const u = await newUser();
  const g = await newGuest();
  const op = await cookieOf("operator", await operatorToken());
  const user = (await userCookie.serialize(u.token)).split(";")[0];
  const pageValid = (raw: string) => parseClientMessage(raw) !== null;
  const serviceValid = (raw: string) => parseServiceClientMessage(raw) !== null;
  return [
    { name: "quotes", path: "/ws/quotes/BTC-USDT", headers: {}, max: PAGE_FRAME_MAX, valid: pageValid },
    { name: "user channel", path: "/ws/user", headers: { cookie: user }, max: PAGE_FRAME_MAX, valid: pageValid },
    { name: "conversation", path: `/ws/service/${g.conversation_id}`, headers: { cookie: g.cookie }, max: SERVICE_FRAME_MAX, valid: serviceValid },
    { name: "operator inbox", path: "/ws/service/inbox", headers: { cookie: op }, max: PAGE_FRAME_MAX, valid: pageValid },
  ];
}

describe("WebSocket endpoints under bad frames", () => {
  let all: Endpoint[];
  beforeAll(async () => {
    all = await endpoints();
  });

  it("a bad frame closes only its own socket, with 1009 when too big and 1003 otherwise; the object serves the others", async () => {
    for (const e of all) {
      const bystander = await open(e);
      let refused = 0;
      let tooBig = 0;
      await fc.assert(
        fc.asyncProperty(badFrame(e.max), async (frame) => {
          if (typeof frame === "string" && e.valid(frame)) return; // a well-formed message by chance: not a bad frame
          const s = await open(e);
          s.ws.send(frame);
          const size = typeof frame === "string" ? frame.length : frame.byteLength;
          const expected = typeof frame === "string" && size > e.max ? 1009 : 1003;
          expect(await s.closed, `${e.name}: ${typeof frame === "string" ? frame.slice(0, 60) : "binary"} (${size})`).toBe(expected);
          refused += 1;
          if (expected === 1009) tooBig += 1;
        }),
        { numRuns: 40, endOnFailure: true },
      );
      expect(refused).toBeGreaterThan(20);
      expect(tooBig, `${e.name}: oversized frames were tried`).toBeGreaterThan(0);
      ping(bystander);
      expect((await bystander.waitFor(isPong)).type).toBe("pong");
      bystander.ws.close(1000);
    }
  }, 120_000);

  it("a flood of 500 frames on one socket is answered in order and leaves the others served at once", async () => {
    for (const e of all) {
      const flooder = await open(e);
      const other = await open(e);
      for (let i = 0; i < 500; i += 1) ping(flooder);
      ping(other);
      expect((await other.waitFor(isPong)).type).toBe("pong");
      await expect.poll(() => flooder.frames.filter((f) => f.includes('"pong"')).length, { timeout: 30_000 }).toBe(500);
      flooder.ws.close(1000);
      other.ws.close(1000);
    }
  }, 120_000);

  it("an upgrade from no origin, Origin: null or garbage is refused with 403, never a 500", async () => {
    for (const e of all.filter((x) => x.headers.cookie)) {
      for (const origin of ["null", "garbage", "http://evil.example", "http://127.0.0.1.evil.example"]) {
        const res = await page(e.path, { headers: { upgrade: "websocket", origin, ...e.headers } });
        expect(res.status, `${e.name} from ${origin}`).toBe(403);
      }
    }
  });
});
