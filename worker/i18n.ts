import { RESOURCES, type Messages, type Namespace } from "../locales";
import { DEFAULT_LOCALE, type LocaleKey } from "../locales/languages";

/**
 * Server-side message lookup for API answers. `key` is "<namespace>.<path>", e.g.
 * "errors.login_failed". Falls back to English, then to the key itself.
 */
export function translate(locale: LocaleKey, key: string, vars: Record<string, string | number> = {}): string {
  const text = lookup(locale, key) ?? lookup(DEFAULT_LOCALE, key) ?? key;
  return text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => (name in vars ? String(vars[name]) : `{{${name}}}`));
}

function lookup(locale: LocaleKey, key: string): string | null {
  const [ns, ...path] = key.split(".");
  let node: string | Messages | undefined = RESOURCES[locale]?.[ns as Namespace];
  for (const part of path) {
    if (!node || typeof node === "string") return null;
    node = node[part];
  }
  return typeof node === "string" ? node : null;
}
