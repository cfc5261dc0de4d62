import { describe, expect, it } from "vitest";
import { checkOperatorCredentials, OPERATOR_PASSWORD_MIN } from "../../../worker/domain/identity/operators";
import { DEMO } from "../../../scripts/seed-demo";

describe("operator credentials", () => {
  it("needs at least 12 characters, one more than a user may use", () => {
    expect(OPERATOR_PASSWORD_MIN).toBe(12);
    expect(checkOperatorCredentials("ops1", "abcdefghij1")).toEqual({ status: "password_too_short" }); // 11
    expect(checkOperatorCredentials("ops1", "abcdefghijk1")).toEqual({ status: "ok", account: "ops1" }); // 12
    expect(checkOperatorCredentials("ops1", "short-1")).toEqual({ status: "password_too_short" }); // also under the user minimum
  });

  it("keeps the user rule: a letter and a digit, at most 64 characters", () => {
    expect(checkOperatorCredentials("ops1", "abcdefghijklmnop")).toEqual({ status: "password_invalid" });
    expect(checkOperatorCredentials("ops1", "1234567890123")).toEqual({ status: "password_invalid" });
    expect(checkOperatorCredentials("ops1", `a1${"x".repeat(63)}`)).toEqual({ status: "password_invalid" });
  });

  it("checks and normalizes the account first", () => {
    expect(checkOperatorCredentials("1ops", "long-enough-pw-1")).toEqual({ status: "account_invalid" });
    expect(checkOperatorCredentials(" Ops_One ", "long-enough-pw-1")).toEqual({ status: "ok", account: "ops_one" });
  });

  it("the demo operator's password passes", () => {
    expect(checkOperatorCredentials(DEMO.operator.account, DEMO.operator.password).status).toBe("ok");
  });
});
