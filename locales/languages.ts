/**
 * The ten language sets. `key` names the folder under locales/ and the BCP 47 tag pages use;
 * `code` is the product's value code that API clients send as `lang`. Simplified
 * Chinese had no code in the original product; we chose "zh" (docs/decisions/003).
 */
export const LANGUAGES = [
  { key: "en", code: "en", name: "English" },
  { key: "es", code: "xby", name: "Español" },
  { key: "th", code: "ty", name: "ไทย" },
  { key: "de", code: "dy", name: "Deutsch" },
  { key: "it", code: "ydl", name: "Italiano" },
  { key: "pt", code: "bx", name: "Português" },
  { key: "ja", code: "jpn", name: "日本語" },
  { key: "zh-Hant", code: "tw", name: "繁體中文" },
  { key: "vi", code: "yn", name: "Tiếng Việt" },
  { key: "zh-Hans", code: "zh", name: "简体中文" },
] as const;

export type LocaleKey = (typeof LANGUAGES)[number]["key"];
export const LOCALE_KEYS: LocaleKey[] = LANGUAGES.map((l) => l.key);
export const DEFAULT_LOCALE: LocaleKey = "en";

/** Resolves a `lang` value code ("ty"), a locale key ("th") or a BCP 47 tag ("th-TH") to a key. */
export function localeFromLang(value: string | null | undefined): LocaleKey | null {
  if (!value) return null;
  const v = value.trim();
  if (!v || v.length > 35) return null;
  const lower = v.toLowerCase();
  for (const l of LANGUAGES) if (l.code === lower || l.key.toLowerCase() === lower) return l.key;
  return localeFromTag(v);
}

/** Maps a BCP 47 tag to a key, using the likely script so zh-CN is Simplified and zh-TW Traditional. */
export function localeFromTag(tag: string): LocaleKey | null {
  let loc: Intl.Locale;
  try {
    loc = new Intl.Locale(tag).maximize();
  } catch {
    return null;
  }
  if (loc.language === "zh") return loc.script === "Hant" ? "zh-Hant" : "zh-Hans";
  const found = LANGUAGES.find((l) => l.key === loc.language);
  return found ? found.key : null;
}

/** Picks the best supported locale from an Accept-Language header, honouring q-values. */
/** Headers seen recently and their answer: browsers send the same few on every request. */
const acceptLanguageSeen = new Map<string, LocaleKey | null>();

export function localeFromAcceptLanguage(header: string | null | undefined): LocaleKey | null {
  if (!header) return null;
  const seen = acceptLanguageSeen.get(header);
  if (seen !== undefined) return seen;
  const found = rankAcceptLanguage(header);
  if (acceptLanguageSeen.size >= 256) acceptLanguageSeen.clear();
  acceptLanguageSeen.set(header, found);
  return found;
}

function rankAcceptLanguage(header: string): LocaleKey | null {
  const ranked = header
    .slice(0, 500)
    .split(",")
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, i };
    })
    .filter((r) => r.tag && r.tag !== "*" && r.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.i - b.i);
  for (const r of ranked) {
    const key = localeFromTag(r.tag);
    if (key) return key;
  }
  return null;
}

export function langCodeOf(key: LocaleKey): string {
  return LANGUAGES.find((l) => l.key === key)!.code;
}
