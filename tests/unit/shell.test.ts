import { describe, expect, it } from "vitest";
import { platformOf } from "../../app/lib/platform";
import { chartColors, themeChoiceOf, themeCookie, themeFromCookieHeader } from "../../app/lib/theme";

describe("platform flag", () => {
  it.each([
    ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148", 0, "i"],
    ["Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15", 5, "i"],
    // iPadOS asks for desktop sites and says Macintosh; only touch gives it away.
    ["Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Version/17.4 Safari/605.1.15", 5, "i"],
    ["Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Version/17.4 Safari/605.1.15", 0, null],
    ["Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36", 5, "a"],
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36", 0, null],
  ])("%s (touch points %i) → %s", (ua, touch, flag) => {
    expect(platformOf(ua, touch)).toBe(flag);
  });
});

describe("theme choice", () => {
  it("reads the cookie among others; anything unknown is system", () => {
    expect(themeFromCookieHeader("lng=ja; theme=dark; pl_session=x")).toBe("dark");
    expect(themeFromCookieHeader("theme=light")).toBe("light");
    expect(themeFromCookieHeader("xtheme=dark")).toBe("system");
    expect(themeFromCookieHeader("theme=Dark")).toBe("system");
    expect(themeFromCookieHeader(null)).toBe("system");
    expect(themeChoiceOf(42)).toBe("system");
  });

  it("the cookie is Secure only over https and never HttpOnly (the offline page reads it)", () => {
    expect(themeCookie("dark", true)).toBe("theme=dark; Path=/; Max-Age=31536000; SameSite=Lax; Secure");
    expect(themeCookie("light", false)).not.toMatch(/Secure|HttpOnly/);
  });

  it("chart colours differ per theme and the dark background is the dark card", () => {
    expect(chartColors("dark").background).not.toBe(chartColors("light").background);
    expect(chartColors("dark").background).toBe("#1a1f26");
  });
});
