import { describe, expect, it } from "vitest";
import { clientOf, deviceLabel, limiterNetworkOf, networkOf } from "../../worker/domain/identity/client";

describe("deviceLabel", () => {
  it.each([
    ["Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36", "Chrome on Android"],
    ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", "Safari on iOS"],
    ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0 Mobile/15E148 Safari/604.1", "Chrome on iOS"],
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36 Edg/126.0", "Edge on Windows"],
    ["Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:127.0) Gecko/20100101 Firefox/127.0", "Firefox on macOS"],
    ["Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0 Mobile Safari/537.36", "Samsung Internet on Android"],
    ["Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0 Safari/537.36", "Chrome on Linux"],
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36 OPR/111.0", "Opera on Windows"],
    ["curl/8.5.0", ""],
    ["", ""],
  ])("%s → %s", (ua, label) => {
    expect(deviceLabel(ua)).toBe(label);
  });
});

describe("limiterNetworkOf", () => {
  it.each([
    ["203.0.113.77", "203.0.113.77"],
    ["2001:db8:abcd:12::1", "2001:db8:abcd:12::/64"],
    // The rest of a /64 is the subscriber's to change: every address in it is one network.
    ["2001:db8:abcd:12:ffff:1:2:3", "2001:db8:abcd:12::/64"],
    ["2001:DB8:ABCD:0012::9", "2001:db8:abcd:12::/64"],
    ["::ffff:198.51.100.9", "198.51.100.9"],
    ["", null],
    [null, null],
  ])("%s counts as %s", (ip, key) => {
    expect(limiterNetworkOf(ip)).toBe(key);
  });
});

describe("networkOf", () => {
  it.each([
    ["203.0.113.77", "203.0.113.0/24"],
    ["10.1.2.3", "10.1.2.0/24"],
    ["2001:db8:abcd:12::1", "2001:db8:abcd::/48"],
    ["2001:0DB8:00ab::", "2001:db8:ab::/48"],
    ["::1", "0:0:0::/48"],
    ["::ffff:192.0.2.1", "0:0:0::/48"],
    ["", "local"],
    [null, "local"],
    ["999.1.1.1", "local"],
    ["1:2:3:4:5:6:7:8:9", "local"],
    ["1::2::3", "local"],
    ["not an address", "local"],
  ])("%s → %s", (ip, net) => {
    expect(networkOf(ip)).toBe(net);
  });

  it("reads the request's headers", () => {
    const h = new Headers({ "user-agent": "Mozilla/5.0 (Windows NT 10.0) Firefox/127.0", "cf-connecting-ip": "198.51.100.9" });
    expect(clientOf(h)).toEqual({ device: "Firefox on Windows", ip: "198.51.100.0/24" });
  });
});
