import { RemixBrowser } from "@remix-run/react";
import i18next from "i18next";
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { I18nextProvider, initReactI18next } from "react-i18next";
import { timedFetch } from "./lib/request-timeout";

/**
 * The page's words come from /locales/<lng> (the same bundled JSON the server rendered
 * with), so only the current language is downloaded.
 */
async function hydrate() {
  const lng = document.documentElement.lang || "en";
  let resources: Record<string, Record<string, unknown>> = {};
  try {
    const res = await timedFetch(`/locales/${encodeURIComponent(lng)}`);
    if (res.ok) resources = await res.json();
  } catch {
    // Offline or out of time: hydrate anyway; the server-rendered text stays on screen.
  }
  await i18next.use(initReactI18next).init({
    lng,
    resources: { [lng]: resources },
    ns: Object.keys(resources),
    defaultNS: "common",
    fallbackLng: false,
    interpolation: { escapeValue: false },
  });
  startTransition(() => {
    hydrateRoot(
      document,
      <I18nextProvider i18n={i18next}>
        <StrictMode>
          <RemixBrowser />
        </StrictMode>
      </I18nextProvider>,
    );
  });
}

hydrate();
