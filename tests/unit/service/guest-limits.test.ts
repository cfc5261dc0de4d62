import { describe, expect, it } from "vitest";
import { GUEST_LIMITS, guestLimitScale, guestWindows } from "../../../worker/domain/service/guest-limits";

describe("guest limits (decision 115)", () => {
  it("the network's windows come before the total, so a refused network spends no place of it", () => {
    expect(guestWindows("upload", "203.0.113.9").map((w) => [w.key, w.budget.max, w.scope])).toEqual([
      ["guest:upload:hour:203.0.113.9", GUEST_LIMITS.upload.network_hour, "network"],
      ["guest:upload:day:203.0.113.9", GUEST_LIMITS.upload.network_day, "network"],
      ["guest:upload:day:all", GUEST_LIMITS.upload.total_day, "total"],
    ]);
    // Without an address (scripts in-process) only the total counts.
    expect(guestWindows("conversation", null).map((w) => w.scope)).toEqual(["total"]);
  });

  it("the test switch scales the network's limits outside production only, never the total", () => {
    expect(guestLimitScale({ APP_ENV: "local", GUEST_LIMITS_SCALE: "100" })).toBe(100);
    expect(guestLimitScale({ APP_ENV: "production", GUEST_LIMITS_SCALE: "100" })).toBe(1);
    expect(guestLimitScale({ APP_ENV: "test" })).toBe(1);
    expect(guestLimitScale({ APP_ENV: "local", GUEST_LIMITS_SCALE: "0.5" })).toBe(1);
    const scaled = guestWindows("conversation", "n", 100);
    expect(scaled.map((w) => w.budget.max)).toEqual([GUEST_LIMITS.conversation.network_hour * 100, GUEST_LIMITS.conversation.network_day * 100, GUEST_LIMITS.conversation.total_day]);
  });
});
