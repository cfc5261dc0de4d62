import { describe, expect, it } from "vitest";
import { parseTexts, textFor } from "../../../worker/domain/promotions/texts";

describe("promotion texts", () => {
  it("keeps known languages with a title, needs English, falls back to it", () => {
    const t = parseTexts(JSON.stringify({ en: { title: "Bonus", terms: "10 %" }, ja: { title: "ボーナス", terms: "10%" }, xx: { title: "?", terms: "" }, de: { title: " ", terms: "x" } }))!;
    expect(Object.keys(t).sort()).toEqual(["en", "ja"]);
    expect(textFor(t, "ja")).toEqual({ title: "ボーナス", terms: "10%", lang: "ja" });
    expect(textFor(t, "de")).toEqual({ title: "Bonus", terms: "10 %", lang: "en" });
  });

  it("refuses what has no English or is not JSON", () => {
    expect(parseTexts(JSON.stringify({ ja: { title: "ボーナス", terms: "" } }))).toBeNull();
    expect(parseTexts("{")).toBeNull();
    expect(parseTexts("null")).toBeNull();
    expect(parseTexts(JSON.stringify({ en: { title: 5, terms: "" } }))).toBeNull();
  });
});
