import { RemixI18Next } from "remix-i18next/server";
import { RESOURCES } from "../../locales";
import { DEFAULT_LOCALE, LOCALE_KEYS, localeFromAcceptLanguage, localeFromLang } from "../../locales/languages";
import { localeCookie } from "./session.server";

/**
 * Page language: the stored choice (the `lng` cookie, written by the settings page and at
 * login from the account's saved language), then Accept-Language. Our own matcher maps
 * zh-CN → zh-Hans and zh-TW → zh-Hant by likely script (remix-i18next's default does not).
 */
export const i18nServer = new RemixI18Next({
  detection: {
    supportedLanguages: LOCALE_KEYS,
    fallbackLanguage: DEFAULT_LOCALE,
    cookie: localeCookie,
    order: ["cookie", "custom"],
    async findLocale(request) {
      return localeFromAcceptLanguage(request.headers.get("accept-language")) ?? DEFAULT_LOCALE;
    },
  },
  i18next: { resources: RESOURCES, fallbackLng: DEFAULT_LOCALE, defaultNS: "common" },
});

export async function getLocale(request: Request) {
  const detected = await i18nServer.getLocale(request);
  return localeFromLang(detected) ?? DEFAULT_LOCALE;
}
