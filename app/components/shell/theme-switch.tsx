import { useFetcher } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { THEMES, themeChoiceOf, type ThemeChoice } from "../../lib/theme";

/**
 * System / Light / Dark, for the settings page. The choice posts to the page's action
 * (intent "theme"), which sets the cookie; the root then renders the new data-theme. While
 * the post is in flight the chosen option already shows as selected.
 */
export function ThemeSwitch({ current }: { current: ThemeChoice }) {
  const { t } = useTranslation("shell");
  const fetcher = useFetcher({ key: "theme" });
  const pending = fetcher.formData?.get("theme");
  const shown = pending ? themeChoiceOf(pending) : current;
  return (
    <div className="theme-switch" role="radiogroup" aria-label={t("theme.title")}>
      {THEMES.map((choice) => (
        <button
          key={choice}
          type="button"
          role="radio"
          aria-checked={choice === shown}
          className="theme-option"
          data-theme-option={choice}
          onClick={() => {
            if (choice !== shown) fetcher.submit({ intent: "theme", theme: choice }, { method: "post" });
          }}
        >
          {t(`theme.${choice}`)}
        </button>
      ))}
    </div>
  );
}
