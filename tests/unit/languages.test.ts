import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LANGUAGES, localeFromAcceptLanguage, localeFromLang, localeFromTag } from "../../locales/languages";

describe("lang value codes", () => {
  it.each(LANGUAGES.map((l) => [l.code, l.key]))("the code %s means %s", (code, key) => {
    expect(localeFromLang(code)).toBe(key);
    expect(localeFromLang(key)).toBe(key);
  });

  it("accepts BCP 47 tags and is case-insensitive", () => {
    expect(localeFromLang("TY")).toBe("th");
    expect(localeFromLang("pt-BR")).toBe("pt");
    expect(localeFromLang("zh-hant")).toBe("zh-Hant");
  });

  it("unknown or empty values are null", () => {
    for (const v of ["", "  ", "klingon", "xx-YY", null, undefined, "a".repeat(100)]) expect(localeFromLang(v)).toBeNull();
  });
});

describe("Accept-Language", () => {
  it.each([
    ["zh-CN", "zh-Hans"],
    ["zh-SG", "zh-Hans"],
    ["zh", "zh-Hans"],
    ["zh-TW", "zh-Hant"],
    ["zh-HK", "zh-Hant"],
    ["zh-Hant-TW", "zh-Hant"],
    ["th-TH,th;q=0.9,en;q=0.8", "th"],
    ["fr-FR,fr;q=0.9,de;q=0.8", "de"],
    ["en;q=0.5,ja;q=0.9", "ja"],
    ["es-419", "es"],
    ["vi-VN", "vi"],
  ])("%s → %s", (header, key) => {
    expect(localeFromAcceptLanguage(header)).toBe(key);
  });

  it("q=0 means not acceptable", () => {
    expect(localeFromAcceptLanguage("ja;q=0, fr")).toBeNull();
  });

  it("never throws, whatever the header", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (header) => {
        const r = localeFromAcceptLanguage(header);
        expect(r === null || LANGUAGES.some((l) => l.key === r)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("a tag always maps to a supported key or null", () => {
    fc.assert(fc.property(fc.string({ maxLength: 40 }), (tag) => {
      const r = localeFromTag(tag);
      expect(r === null || LANGUAGES.some((l) => l.key === r)).toBe(true);
    }));
  });
});
