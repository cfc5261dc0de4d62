import { describe, expect, it } from "vitest";
import { pushEndpointAllowed } from "../../../worker/push/endpoints";

const PROD = { APP_ENV: "production" };

describe("pushEndpointAllowed (decision 114)", () => {
  it.each([
    "https://fcm.googleapis.com/fcm/send/abc:def",
    "https://fcm.googleapis.com/wp/abc",
    "https://updates.push.services.mozilla.com/wpush/v2/gAAAA",
    "https://web.push.apple.com/QGuQyavXu",
    "https://wns2-par02p.notify.windows.com/w/?token=BQYAAAB",
    "https://FCM.googleapis.com:443/fcm/send/x",
  ])("accepts %s", (url) => {
    expect(pushEndpointAllowed(url, PROD)).toBe(true);
  });

  it.each([
    "http://fcm.googleapis.com/fcm/send/x",
    "https://fcm.googleapis.com:8443/fcm/send/x",
    "https://u:p@fcm.googleapis.com/fcm/send/x",
    "https://fcm.googleapis.com./fcm/send/x",
    "https://fcm.googleapis.com.evil.example/x",
    "https://push.apple.com/x",
    "https://a.b.push.apple.com/x",
    "https://notify.windows.com.evil.example/x",
    "https://169.254.169.254/latest",
    "https://[::1]/x",
    "not a url",
  ])("refuses %s", (url) => {
    expect(pushEndpointAllowed(url, PROD)).toBe(false);
  });

  it("a `.test` host stands for a push service only with the test switch, and never in production", () => {
    const url = "https://push.example.test/x";
    expect(pushEndpointAllowed(url, { APP_ENV: "test", PUSH_TEST_HOSTS: "1" })).toBe(true);
    expect(pushEndpointAllowed(url, { APP_ENV: "local", PUSH_TEST_HOSTS: "1" })).toBe(true);
    expect(pushEndpointAllowed(url, { APP_ENV: "test" })).toBe(false);
    expect(pushEndpointAllowed(url, { APP_ENV: "production", PUSH_TEST_HOSTS: "1" })).toBe(false);
    expect(pushEndpointAllowed("https://127.0.0.1/x", { APP_ENV: "test", PUSH_TEST_HOSTS: "1" })).toBe(false);
  });
});
