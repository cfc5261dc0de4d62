import { useEffect, useState } from "react";

/**
 * Light or dark. The choice (`system`, `light`, `dark`) lives in the `theme` cookie so the
 * server renders <html data-theme> right on the first byte: `light` and `dark` are fixed by
 * CSS on that attribute, `system` by the prefers-color-scheme media query (app/styles/theme.css),
 * so no page ever flashes the wrong colours and no script runs before paint.
 */
export const THEMES = ["system", "light", "dark"] as const;
export type ThemeChoice = (typeof THEMES)[number];
export type Theme = "light" | "dark";

export const THEME_COOKIE = "theme";

export function themeChoiceOf(value: unknown): ThemeChoice {
  return THEMES.includes(value as ThemeChoice) ? (value as ThemeChoice) : "system";
}

/** The cookie's value from a Cookie header; anything unknown is `system`. */
export function themeFromCookieHeader(header: string | null): ThemeChoice {
  const match = /(?:^|;\s*)theme=([^;]*)/.exec(header ?? "");
  return themeChoiceOf(match?.[1]);
}

/** A year, site-wide; readable by the static offline page, so not httpOnly (it holds no secret). */
export function themeCookie(choice: ThemeChoice, secure: boolean): string {
  return `${THEME_COOKIE}=${choice}; Path=/; Max-Age=31536000; SameSite=Lax${secure ? "; Secure" : ""}`;
}

/** What the page shows now (browser only): the choice, or the system's when it is `system`. */
export function currentTheme(): Theme {
  const choice = themeChoiceOf(document.documentElement.dataset.theme);
  if (choice !== "system") return choice;
  return window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

/**
 * The theme shown, kept current when the choice changes (the root re-renders data-theme) or
 * the system switches. For drawings that cannot use CSS variables (canvas charts).
 */
export function useTheme(): Theme {
  const [theme, setTheme] = useState<Theme>("light");
  useEffect(() => {
    const update = () => setTheme(currentTheme());
    update();
    const media = window.matchMedia("(prefers-color-scheme: dark)");
    media.addEventListener("change", update);
    const observer = new MutationObserver(update);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    return () => {
      media.removeEventListener("change", update);
      observer.disconnect();
    };
  }, []);
  return theme;
}

/** lightweight-charts colours for each theme (the canvas cannot read CSS variables). */
export function chartColors(theme: Theme) {
  return theme === "dark"
    ? { background: "#1a1f26", text: "#98a2b3", grid: "#252b33", border: "#2e3540" }
    : { background: "#ffffff", text: "#86909c", grid: "#f2f3f5", border: "#e5e6eb" };
}

/** The chart options that depend on the theme, applied at creation and on every change. */
export function chartThemeOptions(theme: Theme) {
  const c = chartColors(theme);
  return {
    layout: { background: { color: c.background }, textColor: c.text },
    grid: { vertLines: { color: c.grid }, horzLines: { color: c.grid } },
    rightPriceScale: { borderColor: c.border },
    timeScale: { borderColor: c.border },
  };
}
