import type { MiddlewareHandler } from "hono";
import { DEFAULT_LOCALE, localeFromAcceptLanguage, localeFromLang } from "../../../locales/languages";
import type { AppEnv } from "../types";
import { searchOf } from "./input";

/**
 * The answer's language: `lang` in body or query (`lang` value codes, locale keys or BCP 47
 * tags), then the `lang` header, then Accept-Language, then English.
 */
export const detectLang: MiddlewareHandler<AppEnv> = async (c, next) => {
  const fromInput = c.get("input")?.lang;
  // Without a `lang` field the answer is what detectLangEarly found from the same headers.
  if (typeof fromInput !== "string" && c.get("locale")) return next();
  c.set(
    "locale",
    localeFromLang(typeof fromInput === "string" ? fromInput : null) ??
      localeFromLang(c.req.header("lang")) ??
      localeFromAcceptLanguage(c.req.header("accept-language")) ??
      DEFAULT_LOCALE,
  );
  await next();
};

/** Before the body is read (or when reading it failed), the query and headers still decide. */
export const detectLangEarly: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set(
    "locale",
    localeFromLang(searchOf(c.req.url).get("lang")) ??
      localeFromLang(c.req.header("lang")) ??
      localeFromAcceptLanguage(c.req.header("accept-language")) ??
      DEFAULT_LOCALE,
  );
  await next();
};
