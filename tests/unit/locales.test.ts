import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NAMESPACES, RESOURCES, type Messages } from "../../locales";
import { LANGUAGES } from "../../locales/languages";

const dir = join(__dirname, "../../locales");

function keyPaths(m: Messages, prefix = ""): string[] {
  return Object.entries(m).flatMap(([k, v]) => (typeof v === "string" ? [`${prefix}${k}`] : keyPaths(v, `${prefix}${k}.`)));
}
function valueAt(m: Messages, path: string): string {
  return path.split(".").reduce<any>((node, k) => node?.[k], m);
}
/** "users.results_for_one" → "users.results_for": plural forms differ by language, families do not. */
const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;
const family = (path: string) => path.replace(PLURAL_SUFFIX, "");
/** The English text a translated key is checked against: the same key, or its family's `_other`. */
function englishFor(en: Messages, path: string): string {
  return valueAt(en, path) ?? valueAt(en, `${family(path)}_other`);
}

/**
 * Strings that are the same in English and a translation on purpose: brand names, and words
 * a language really borrows. Anything else identical to English is an untranslated leftover.
 */
const SAME_AS_ENGLISH_ALLOWED = new Set(["Proofline", "WeChat", "OK", "USDT", "Demo"]);

describe("language sets", () => {
  it("there is a folder for each of the ten languages and nothing else", () => {
    const folders = readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    expect(folders).toEqual(LANGUAGES.map((l) => l.key).sort());
  });

  it("every folder has exactly the bundled namespaces, and the bundle is what is on disk", () => {
    for (const l of LANGUAGES) {
      const files = readdirSync(join(dir, l.key)).map((f) => f.replace(/\.json$/, "")).sort();
      expect(files, l.key).toEqual([...NAMESPACES].sort());
      for (const ns of NAMESPACES) {
        const onDisk = JSON.parse(readFileSync(join(dir, l.key, `${ns}.json`), "utf8"));
        expect(RESOURCES[l.key][ns], `${l.key}/${ns}`).toEqual(onDisk);
      }
    }
  });

  for (const l of LANGUAGES.filter((l) => l.key !== "en")) {
    describe(l.key, () => {
      for (const ns of NAMESPACES) {
        it(`${ns}: same keys as English (plural forms are checked in locales-plurals)`, () => {
          const families = (m: Messages) => [...new Set(keyPaths(m).map(family))].sort();
          expect(families(RESOURCES[l.key][ns])).toEqual(families(RESOURCES.en[ns]));
        });

        it(`${ns}: every value translated, placeholders kept`, () => {
          for (const path of keyPaths(RESOURCES[l.key][ns])) {
            const en = englishFor(RESOURCES.en[ns], path);
            const tr = valueAt(RESOURCES[l.key][ns], path);
            expect(tr.trim(), `${l.key}/${ns}:${path} is empty`).not.toBe("");
            if (!SAME_AS_ENGLISH_ALLOWED.has(en)) expect(tr, `${l.key}/${ns}:${path} is still English`).not.toBe(en);
            const placeholders = (s: string) => (s.match(/\{\{\w+\}\}/g) ?? []).sort();
            expect(placeholders(tr), `${l.key}/${ns}:${path}`).toEqual(placeholders(en));
          }
        });
      }
    });
  }
});
