import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { ClientActionFunctionArgs } from "@remix-run/react";
import { clientAction } from "../../app/lib/client-action";
import { isTimeoutError, timedFetch } from "../../app/lib/request-timeout";
import { withTimeout } from "../../worker/api/request-timeout";
import { submissionKey, TapGate, tapDecision } from "../../app/lib/tap-guard";
import { timedApiCall } from "../../worker/api/in-process";
import { translate } from "../../worker/i18n";

/**
 * The client's promised behaviours (decision 142). The numbers are written out here, not
 * imported: the test holds the app to the promise (60 s, uploads 10 s, 500 ms).
 */
const never = () => new Promise<never>(() => {});

/** AbortSignal.timeout, caught: each call's limit is recorded and the test says when it fires. */
function catchTimeouts() {
  const limits: number[] = [];
  const controllers: AbortController[] = [];
  vi.spyOn(AbortSignal, "timeout").mockImplementation((ms: number) => {
    limits.push(ms);
    const c = new AbortController();
    controllers.push(c);
    return c.signal;
  });
  const fire = () => controllers.forEach((c) => c.abort(new DOMException("timed out", "TimeoutError")));
  return { limits, fire };
}

afterEach(() => vi.restoreAllMocks());

function submission(body: URLSearchParams | FormData, serverAction: () => Promise<unknown>): ClientActionFunctionArgs {
  const request = new Request("http://localhost/pages/me/sub/draw-money", { method: "POST", body });
  return { request, params: {}, serverAction } as unknown as ClientActionFunctionArgs;
}

describe("a page's submission (clientAction)", () => {
  it("waits 60 s for a form, then answers a timeout the page shows as errors.request_timeout", async () => {
    const { limits, fire } = catchTimeouts();
    const answer = clientAction(submission(new URLSearchParams({ amount: "10" }), never));
    await Promise.resolve();
    fire();
    expect(await answer).toEqual({ status: 504, code: 0, msg: "", data: null, network: true, timeout: true });
    expect(limits).toEqual([60_000]);
  });

  it("waits 10 s for an upload (a multipart body)", async () => {
    const { limits, fire } = catchTimeouts();
    const body = new FormData();
    body.append("intent", "upload");
    body.append("file", new Blob([new Uint8Array([1, 2, 3])], { type: "image/png" }), "a.png");
    const answer = clientAction(submission(body, never));
    await Promise.resolve();
    fire();
    expect((await answer) as { timeout?: boolean }).toMatchObject({ timeout: true });
    expect(limits).toEqual([10_000]);
  });

  it("passes an answer in time through, and a network failure stays a network failure", async () => {
    catchTimeouts();
    const envelope = { status: 200, code: 1, msg: "ok", data: { id: 1 } };
    expect(await clientAction(submission(new URLSearchParams(), async () => envelope))).toBe(envelope);
    const failed = await clientAction(submission(new URLSearchParams(), async () => Promise.reject(new TypeError("Failed to fetch"))));
    expect(failed).toEqual({ status: 0, code: 0, msg: "", data: null, network: true });
  });
});

describe("a loader's or action's API call (timedApiCall, behind context.api)", () => {
  it("answers a 504 request_timeout envelope in the page's language after 60 s, 10 s for a FormData body", async () => {
    const { limits, fire } = catchTimeouts();
    const call = timedApiCall(never);
    const json = call("/api/user/withdraw", { body: { amount: "10" }, lang: "ty" });
    const upload = call("/api/common/upload", { body: new FormData(), lang: "en" });
    await Promise.resolve();
    fire();
    expect(await json).toEqual({ status: 504, body: { code: 0, msg: translate("th", "errors.request_timeout"), data: { error: "request_timeout" } } });
    expect((await upload).body.msg).toBe(translate("en", "errors.request_timeout"));
    expect(limits).toEqual([60_000, 10_000]);
  });

  it("an answer in time is the API's own", async () => {
    const call = timedApiCall(async () => Response.json({ code: 1, msg: "ok", data: 7 }), () => 1000);
    expect(await call("/api/x")).toEqual({ status: 200, body: { code: 1, msg: "ok", data: 7 } });
  });

  it("really gives up: a call that never answers ends after its (short, for the test) limit", async () => {
    const started = Date.now();
    const answer = await timedApiCall(never, () => 30)("/api/x", { lang: "ja" });
    expect(answer.status).toBe(504);
    expect(answer.body.msg).toBe(translate("ja", "errors.request_timeout"));
    // A call that never answers would hang the test: any bound proves it gave up (generous for a loaded machine).
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe("the browser's own fetches (timedFetch)", () => {
  let server: Server;
  let base = "";
  beforeAll(async () => {
    // Answers nothing, ever: the request hangs until the client gives up.
    server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it("aborts a hanging request after its limit with a TimeoutError", async () => {
    const err = await timedFetch(`${base}/locales/en`, {}, 50).catch((e: unknown) => e);
    expect(isTimeoutError(err)).toBe(true);
  });

  it("uses 60 s, or 10 s for a FormData body, unless told", async () => {
    const { limits } = catchTimeouts();
    vi.spyOn(globalThis, "fetch").mockResolvedValue(new Response("{}"));
    await timedFetch(`${base}/a`);
    await timedFetch(`${base}/b`, { method: "POST", body: new FormData() });
    expect(limits).toEqual([60_000, 10_000]);
  });

  it("withTimeout answers timed_out once the signal aborts, and the value when it comes first", async () => {
    expect(await withTimeout(never(), AbortSignal.timeout(10))).toEqual({ status: "timed_out" });
    expect(await withTimeout(Promise.resolve(3), AbortSignal.timeout(1000))).toEqual({ status: "ok", value: 3 });
  });
});

describe("repeated taps (TapGate)", () => {
  it("ignores a tap while the last submit is in flight, and within 500 ms of it once answered", () => {
    const gate = new TapGate();
    expect(gate.tap(1_000)).toBe("accept");
    expect(gate.tap(1_100)).toBe("in_flight");
    expect(gate.tap(5_000)).toBe("in_flight"); // a slow answer: still in flight
    gate.settled();
    expect(gate.tap(5_000)).toBe("accept");
    gate.settled();
    expect(gate.tap(5_499)).toBe("too_soon");
    expect(gate.tap(5_500)).toBe("accept");
  });

  it("a clock that went back never locks the button", () => {
    expect(tapDecision({ accepted_at_ms: 10_000, accepted_key: "", in_flight: false }, 9_000)).toBe("accept");
  });

  it("another action of the same form or fetcher, once the first is answered, is not a repeat", () => {
    const gate = new TapGate();
    const close = submissionKey({ intent: "close", conversation_id: "7" });
    const reopen = submissionKey({ intent: "reopen", conversation_id: "7" });
    expect(gate.tap(1_000, close)).toBe("accept");
    expect(gate.tap(1_050, reopen)).toBe("in_flight");
    gate.settled();
    expect(gate.tap(1_100, close)).toBe("too_soon");
    expect(gate.tap(1_100, reopen)).toBe("accept");
  });

  it("a submission's key is what it sends: the same data the same key, whatever its shape", () => {
    const form = new FormData();
    form.set("id", "3");
    expect(submissionKey(form)).toBe(submissionKey(new URLSearchParams({ id: "3" })));
    expect(submissionKey({ id: "3" })).toBe(submissionKey(new URLSearchParams({ id: "3" })));
    expect(submissionKey({ id: "3" })).not.toBe(submissionKey({ id: "4" }));
    expect(submissionKey({ id: "3" }, "/a")).not.toBe(submissionKey({ id: "3" }, "/b"));
  });

  it("property: repeats let through are at least 500 ms apart, and nothing goes while one is in flight", () => {
    const step = fc.record({ gap_ms: fc.integer({ min: 0, max: 1200 }), answered: fc.boolean(), key: fc.constantFrom("a", "b") });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const gate = new TapGate();
        let now = 0;
        let last_accepted: number | null = null;
        let last_key: string | null = null;
        let in_flight = false;
        for (const s of steps) {
          now += s.gap_ms;
          if (s.answered) {
            gate.settled();
            in_flight = false;
            continue;
          }
          const decision = gate.tap(now, s.key);
          const expected = in_flight ? "in_flight" : last_key === s.key && last_accepted !== null && now - last_accepted < 500 ? "too_soon" : "accept";
          expect(decision).toBe(expected);
          if (decision === "accept") {
            last_accepted = now;
            last_key = s.key;
            in_flight = true;
          }
        }
      }),
    );
  });
});
