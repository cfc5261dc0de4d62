import { describe, expect, it } from "vitest";
import { Secret, TOTP } from "otpauth";
import { currentStep, DEMO_OPERATORS, demoOperatorCode } from "../../../scripts/demo-operators";

describe("demo operators' codes (each works once, decision 068)", () => {
  it("callers at the same moment get codes of different steps, never one code twice", async () => {
    // The crash harness's clients step up at once; one code for two was refused as already used.
    const first = currentStep();
    const [a, b] = await Promise.all([demoOperatorCode("auditor"), demoOperatorCode("auditor")]);
    expect(a).not.toBe(b);
    // Both are codes the server takes at once: this step's and the next one's (one more, should a
    // step have ended in between).
    const totp = new TOTP({ secret: Secret.fromBase32(DEMO_OPERATORS.auditor.totp_key), algorithm: "SHA1", digits: 6, period: 30 });
    const taken = [0, 1, 2].map((k) => totp.generate({ timestamp: (first + k) * 30_000 }));
    expect(taken).toContain(a);
    expect(taken).toContain(b);
  });
});
