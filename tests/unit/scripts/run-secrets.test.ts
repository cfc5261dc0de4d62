import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEMO } from "../../../scripts/seed-demo";
import { DEMO_OPERATORS } from "../../../scripts/demo-operators";
import { DEV_CARD_KEY } from "../../../worker/domain/crypto/sealing";
import { describeHits, RUN_SECRETS, scanText } from "../../../scripts/run-secrets";

describe("the secrets of a test run (scripts/run-secrets.ts)", () => {
  it("lists the demo's passwords and authenticator keys, the development card key and the tests' card numbers", () => {
    const values = RUN_SECRETS.map((s) => s.value);
    for (const v of [DEMO.user.password, DEMO_OPERATORS.operator.password, DEMO_OPERATORS.operator.totp_key, DEMO_OPERATORS.auditor.password, DEMO_OPERATORS.auditor.totp_key, DEV_CARD_KEY, "6222021234567894", "4111111111111111"]) expect(values).toContain(v);
  });

  it("each fixed secret still appears in the file it is listed for (the list cannot go stale quietly)", () => {
    for (const s of RUN_SECRETS) {
      const source = readFileSync(s.source, "utf8");
      const found = source.includes(s.value) || (s.kind.includes("(its text)") && source.includes(btoa(s.value)));
      expect(found, `${s.kind} in ${s.source}`).toBe(true);
    }
  });

  it("finds a secret by file, line and kind, also printed in colour, and never repeats its value", () => {
    const out = ["vitest run", `POST /api/user/login {"account":"demo","password":"${DEMO.user.password}"}`, "ok", `\u001b[31m${DEMO_OPERATORS.operator.totp_key.slice(0, 10)}\u001b[39m${DEMO_OPERATORS.operator.totp_key.slice(10)}`, `card 4111111111111111 and again 4111111111111111`].join("\n");
    const hits = scanText(out, "tests/.reports/output.log");
    expect(hits).toEqual([
      { file: "tests/.reports/output.log", line: 2, kind: "demo user's password" },
      { file: "tests/.reports/output.log", line: 4, kind: "demo operator's authenticator key" },
      { file: "tests/.reports/output.log", line: 5, kind: "test card number" },
    ]);
    const text = describeHits(hits);
    expect(text).toContain("tests/.reports/output.log:2: a demo user's password");
    for (const s of RUN_SECRETS) expect(text).not.toContain(s.value);
  });

  it("passes clean output, including JSON log lines whose secret fields were redacted", () => {
    const clean = [
      JSON.stringify({ time: "2026-11-27T10:00:00.000Z", level: "warn", event: "http.request", request_id: "8c1f2a3b4c5d6e7f-AMS", route: "/api/user/login", status: 200 }),
      JSON.stringify({ time: "2026-11-27T10:00:00.000Z", level: "error", event: "api.error", password: "[redacted]", code: "[redacted]" }),
      " ✓ tests/api/identity.test.ts (41 tests) 9312ms",
      "412 passed, 0 failed",
    ].join("\n");
    expect(scanText(clean, "output.log")).toEqual([]);
  });
});
