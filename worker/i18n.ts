import { createInstance, type i18n } from "i18next";
import { NAMESPACES, RESOURCES } from "../locales";
import { DEFAULT_LOCALE, type LocaleKey } from "../locales/languages";

/**
 * API messages come from the same i18next the pages use, so a message with `count` takes the
 * plural form of each language's Intl.PluralRules (`login_throttled_one`, `_other`, ...) and
 * nothing here re-implements plural or interpolation rules. Kept small on purpose: words
 * belong in locales/, plural rules in i18next and Intl; this file only wires them together.
 */
export type MessageVars = Record<string, string | number | Date>;

let instance: i18n | null = null;

/**
 * One instance per isolate. The resources are bundled (a Worker has no file system), so
 * `initImmediate: false` makes init finish synchronously. The instance never changes language:
 * each call names its own `lng`, so concurrent requests in different languages cannot mix.
 */
function messages(): i18n {
  if (instance) return instance;
  const created = createInstance();
  created.init({
    resources: RESOURCES,
    lng: DEFAULT_LOCALE,
    fallbackLng: DEFAULT_LOCALE,
    ns: [...NAMESPACES],
    defaultNS: "errors",
    nsSeparator: ".", // keys read "errors.login_failed": the first segment is the namespace
    initImmediate: false,
    returnNull: false,
    interpolation: { escapeValue: false }, // the output is JSON, never HTML
  });
  instance = created;
  return instance;
}

/**
 * The message `key` ("<namespace>.<path>") in `locale`, falling back to English. Pass `count`
 * for a message with plural forms. A Date becomes a date and time in the user's language.
 */
/** Messages without variables, by locale and key: most answers' `msg` (bounded). */
const plain = new Map<string, string>();

export function translate(locale: LocaleKey, key: string, vars: MessageVars = {}): string {
  if (Object.keys(vars).length === 0) {
    const id = `${locale}\u0000${key}`;
    let text = plain.get(id);
    if (text === undefined) {
      text = messages().t(key, { lng: locale });
      if (plain.size >= 4096) plain.clear();
      plain.set(id, text);
    }
    return text;
  }
  const values = Object.fromEntries(Object.entries(vars).map(([name, v]) => [name, v instanceof Date ? dateTimeText(v, locale) : v]));
  return messages().t(key, { ...values, lng: locale });
}

/**
 * The API does not know the user's time zone (accounts store none and clients do not send
 * one), so a time in a message is UTC and says so; pages re-render it in the browser's zone.
 */
function dateTimeText(when: Date, locale: LocaleKey): string {
  return `${new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }).format(when)} UTC`;
}
