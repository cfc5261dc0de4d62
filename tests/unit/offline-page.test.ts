import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LOCALE_KEYS } from "../../locales/languages";
import { OFFLINE_PAGE, offlineWords, renderOfflinePage } from "../../scripts/offline-page";

/** The offline page is static and generated: it must carry today's words for all ten languages. */
describe("offline page", () => {
  const page = readFileSync(OFFLINE_PAGE, "utf8");

  it("the committed public/offline.html is what scripts/offline-page.ts writes from shell.json", () => {
    expect(page).toBe(renderOfflinePage());
  });

  it("holds the offline words of every language", () => {
    const words = offlineWords();
    for (const lng of LOCALE_KEYS) {
      expect(page, lng).toContain(JSON.stringify(words[lng].title).slice(1, -1));
      expect(words[lng].body.length, lng).toBeGreaterThan(10);
    }
  });

  it("loads nothing from the network: no external script, stylesheet or image", () => {
    expect(page).not.toMatch(/<(script|link|img)[^>]+(src|href)=/);
  });
});
