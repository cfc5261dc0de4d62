import { describe, expect, it } from "vitest";
import { NAMESPACES, RESOURCES, type Messages } from "../../locales";
import { LANGUAGES } from "../../locales/languages";
import { translate } from "../../worker/i18n";

const PLURAL_SUFFIX = /^(.*)_(zero|one|two|few|many|other)$/;

/** Every plural key family in a namespace ("users.results_for") with the forms it has ("one", "other"). */
function pluralFamilies(m: Messages, prefix = ""): Map<string, string[]> {
  const families = new Map<string, string[]>();
  for (const [k, v] of Object.entries(m)) {
    if (typeof v !== "string") {
      for (const [f, forms] of pluralFamilies(v, `${prefix}${k}.`)) families.set(f, forms);
      continue;
    }
    const match = PLURAL_SUFFIX.exec(k);
    if (match) families.set(`${prefix}${match[1]}`, [...(families.get(`${prefix}${match[1]}`) ?? []), match[2]]);
  }
  return families;
}

function textAt(m: Messages, path: string): string {
  return path.split(".").reduce<any>((node, k) => node?.[k], m);
}

/** A value for every placeholder but `count`, so only the number can make a form differ. */
function otherVars(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/\{\{(\w+)\}\}/g)].filter(([, n]) => n !== "count").map(([, n]) => [n, "X"]));
}

describe("plural forms", () => {
  it("finds the plural families it checks (the sign-in lock among them)", () => {
    expect(pluralFamilies(RESOURCES.en.errors).has("login_throttled")).toBe(true);
    expect(NAMESPACES.flatMap((ns) => [...pluralFamilies(RESOURCES.en[ns]).keys()]).length).toBeGreaterThanOrEqual(6);
  });

  for (const l of LANGUAGES) {
    const rules = new Intl.PluralRules(l.key);
    const required = [...rules.resolvedOptions().pluralCategories].sort();

    describe(l.key, () => {
      for (const ns of NAMESPACES) {
        const families = pluralFamilies(RESOURCES[l.key][ns]);
        const english = [...pluralFamilies(RESOURCES.en[ns]).keys()].sort();

        it(`${ns}: the same plural families as English, each with exactly the forms ${required.join(", ")}`, () => {
          expect([...families.keys()].sort()).toEqual(english);
          for (const [name, forms] of families) expect(forms.sort(), `${l.key}/${ns}:${name}`).toEqual(required);
        });

        for (const name of families.keys()) {
          it(`${ns}.${name}: count 1, 2 and 5 each read the form Intl.PluralRules picks, with the number`, () => {
            for (const count of [1, 2, 5]) {
              const form = textAt(RESOURCES[l.key][ns], `${name}_${rules.select(count)}`);
              const vars = otherVars(form);
              const text = translate(l.key, `${ns}.${name}`, { ...vars, count });
              expect(text).toContain(String(count));
              expect(text).not.toContain("{{");
              expect(text).toBe(form.replace(/\{\{(\w+)\}\}/g, (_, n: string) => (n === "count" ? String(count) : vars[n])));
            }
          });
        }
      }
    });
  }
});

describe("the sign-in lock message", () => {
  const lock = (lng: (typeof LANGUAGES)[number]["key"], count: number) => translate(lng, "errors.login_throttled", { count });

  it("agrees with its number in English", () => {
    expect(lock("en", 1)).toBe("Too many failed attempts. Please try again in 1 minute.");
    expect(lock("en", 2)).toBe("Too many failed attempts. Please try again in 2 minutes.");
    expect(lock("en", 15)).toContain("15 minutes.");
  });

  it("agrees with its number in German, Spanish, Portuguese and Italian", () => {
    expect(lock("de", 1)).toContain("in 1 Minute erneut");
    expect(lock("de", 2)).toContain("in 2 Minuten erneut");
    expect(lock("es", 1)).toContain("1 minuto.");
    expect(lock("es", 2)).toContain("2 minutos.");
    expect(lock("pt", 1)).toContain("1 minuto.");
    expect(lock("pt", 2)).toContain("2 minutos.");
    expect(lock("it", 1)).toContain("1 minuto.");
    expect(lock("it", 2)).toContain("2 minuti.");
  });

  it("uses the one form of a language without plurals", () => {
    expect(lock("ja", 1)).toBe("失敗回数が多すぎます。1 分後に再度お試しください。");
    expect(lock("zh-Hans", 2)).toBe("失败次数过多，请 2 分钟后再试。");
  });
});

describe("times in messages", () => {
  const until = new Date(Date.UTC(2026, 10, 24, 15, 5));
  const paused = (lng: (typeof LANGUAGES)[number]["key"]) => translate(lng, "errors.withdraw_paused", { until });

  it("the withdrawal pause names a date and time in the user's language, in UTC, never an ISO string", () => {
    expect(paused("en")).toMatch(/^Withdrawals are paused until Nov 24, 2026, 3:05\sPM UTC because/);
    expect(paused("ja")).toContain("2026/11/24 15:05 UTC まで");
    for (const l of LANGUAGES) expect(paused(l.key), l.key).not.toMatch(/2026-11-24|T15:05|\{\{/);
  });
});
