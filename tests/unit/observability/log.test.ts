import { afterEach, describe, expect, it } from "vitest";
import { asInvocation, captureLogs, currentRequestId, isSecretName, log, requestIdOf, underRequest, withRequest, type LogFields, type LogLevel } from "../../../worker/observability/log";

let lines: { level: LogLevel; line: LogFields }[] = [];
let restore = () => {};
afterEach(() => {
  restore();
  lines = [];
});
const capture = () => {
  restore = captureLogs(lines);
};

describe("structured logs", () => {
  it("writes one JSON object per event with time, level and event", () => {
    capture();
    log("info", "cron.run", { overdue_orders: 3 });
    expect(lines).toHaveLength(1);
    expect(lines[0].level).toBe("info");
    expect(lines[0].line).toMatchObject({ level: "info", event: "cron.run", overdue_orders: 3 });
    expect(new Date(String(lines[0].line.time)).getTime()).toBeGreaterThan(0);
  });

  it("carries the request id and route of the request it runs in, also across awaits", async () => {
    capture();
    await withRequest({ request_id: "req-1", route: "/api/order/addorder" }, async () => {
      await new Promise((r) => setTimeout(r, 1));
      expect(currentRequestId()).toBe("req-1");
      log("warn", "order.refused");
    });
    log("info", "outside");
    expect(lines[0].line).toMatchObject({ request_id: "req-1", route: "/api/order/addorder", event: "order.refused" });
    expect(lines[1].line.request_id).toBeUndefined();
  });

  it("runs a Durable Object's work under the request id its caller handed over, or as it is without one", async () => {
    capture();
    await underRequest("req-rpc", "QuoteHub.placeAs", async () => {
      await new Promise((r) => setTimeout(r, 1));
      log("error", "session.recheck_failed");
    });
    underRequest(undefined, "QuoteHub.placeAs", () => log("info", "alone"));
    expect(lines[0].line).toMatchObject({ request_id: "req-rpc", route: "QuoteHub.placeAs" });
    expect(lines[1].line.request_id).toBeUndefined();
  });

  it("work no request started (a cron run, an alarm) logs under an id of its own, a new one each time", async () => {
    capture();
    await asInvocation("cron", async () => {
      await new Promise((r) => setTimeout(r, 1));
      log("info", "cron.run");
    });
    asInvocation("alarm:quote-hub", () => log("info", "hub.beat"));
    expect(lines.map((l) => l.line.route)).toEqual(["cron", "alarm:quote-hub"]);
    expect(lines[0].line.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines[1].line.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines[1].line.request_id).not.toBe(lines[0].line.request_id);
  });

  it("never writes a field whose name says it holds a secret, however deep", () => {
    capture();
    log("error", "login.failed", { token: "tok-123", body: { newPassword: "hunter22", card_number: "4111111111111111", account: "demo" }, code: "123456" });
    const text = JSON.stringify(lines);
    for (const secret of ["tok-123", "hunter22", "4111111111111111", "123456"]) expect(text).not.toContain(secret);
    expect(lines[0].line.body).toMatchObject({ account: "demo" });
  });

  it("names secret fields by their words, not by chance letters", () => {
    for (const n of ["token", "token_hash", "newPassword", "card_number", "otp", "recovery_codes", "api_key", "keyId", "old-password", "code"]) expect(isSecretName(n), n).toBe(true);
    for (const n of ["status", "symbol", "route", "request_id", "user_id", "monkey", "error_code", "pinned", "duration_ms", "keyring"]) expect(isSecretName(n), n).toBe(false);
  });

  it("logs an error by name and message", () => {
    capture();
    log("error", "api.error", { err: new TypeError("boom", { cause: new Error("D1_ERROR: busy") }) });
    expect(lines[0].line).toMatchObject({ error: "boom: D1_ERROR: busy", error_name: "TypeError" });
  });

  it("takes Cloudflare's ray id as the request id, or makes one", () => {
    expect(requestIdOf(new Headers({ "cf-ray": "8c1f2a3b4c5d6e7f-AMS" }))).toBe("8c1f2a3b4c5d6e7f-AMS");
    const made = requestIdOf(new Headers({ "cf-ray": "<script>" }));
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdOf(new Headers())).not.toBe(made);
  });
});
