import { DEFAULT_LOCALE, LOCALE_KEYS, type LocaleKey } from "../../../locales/languages";

/** A promotion's words in one language: a title and its terms. */
export type PromotionText = { title: string; terms: string };
/** Per language; English is required (every other language falls back to it). */
export type PromotionTexts = Partial<Record<LocaleKey, PromotionText>> & { en: PromotionText };

export const TITLE_MAX = 80;
export const TERMS_MAX = 2000;

/** The stored JSON back as texts (only known languages with a title); null if English is missing. */
export function parseTexts(json: string): PromotionTexts | null {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return null;
  }
  if (!raw || typeof raw !== "object") return null;
  const out: Partial<Record<LocaleKey, PromotionText>> = {};
  for (const key of LOCALE_KEYS) {
    const t = (raw as Record<string, unknown>)[key] as Partial<PromotionText> | undefined;
    if (t && typeof t.title === "string" && t.title.trim() && typeof t.terms === "string") out[key] = { title: t.title, terms: t.terms };
  }
  return out.en ? (out as PromotionTexts) : null;
}

/** The words for `locale`, else English: a user never sees an empty card. */
export function textFor(texts: PromotionTexts, locale: LocaleKey): PromotionText & { lang: LocaleKey } {
  const own: PromotionText | undefined = texts[locale];
  if (own) return { title: own.title, terms: own.terms, lang: locale };
  return { title: texts.en.title, terms: texts.en.terms, lang: DEFAULT_LOCALE };
}
