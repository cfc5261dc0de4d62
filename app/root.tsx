import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useRouteError,
  useRouteLoaderData,
} from "@remix-run/react";
import { redirect, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { langCodeOf } from "../locales/languages";
import { loginUrl, needsLogin } from "./lib/guard";
import { getLocale } from "./lib/i18n.server";
import { clearTokenCookie, readToken } from "./lib/session.server";
import { UiProvider } from "./components/ui";
import { DemoBanner } from "./components/demo-banner";
import { modeOf } from "../worker/mode";
import { useUserChannel } from "./lib/use-user-channel";
import { themeFromCookieHeader } from "./lib/theme";
import { AppShell } from "./components/shell/app-shell";
import { useNonce } from "./lib/nonce";
import type { UserInfo } from "./lib/types";
import styles from "./styles/app.css";
import shellStyles from "./styles/shell.css";
export { shouldRevalidate } from "./lib/revalidate";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: styles },
  // After app.css: the theme's colours and the shell's views (transition, slow navigation).
  { rel: "stylesheet", href: shellStyles },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  { rel: "apple-touch-icon", href: "/icons/apple-touch-icon-180.png" },
  { rel: "manifest", href: "/manifest.webmanifest" },
];

export const meta: MetaFunction = () => [{ title: "Proofline" }];

/**
 * Every page: its language, the signed-in user (or null), and the product's login guard.
 * A page that needs login without a valid session goes to login with `path` to come back to.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const locale = await getLocale(request);
  const token = await readToken(request);
  let user: UserInfo | null = null;
  if (token) {
    const res = await context.api<UserInfo>("/api/user/user", { token, lang: langCodeOf(locale) });
    if (res.body.code === 1) user = res.body.data;
  }
  if (!user && needsLogin(url.pathname)) {
    const headers = token ? { "set-cookie": await clearTokenCookie(request) } : undefined;
    throw redirect(loginUrl(url.pathname + url.search), { headers });
  }
  // Real money needs a real price feed: without one, a production deploy is a labelled demo.
  // The theme cookie lets the server paint the right colours first time (app/lib/theme.ts).
  return { locale, user, mode: modeOf(context.env), theme: themeFromCookieHeader(request.headers.get("cookie")) };
}

export type RootData = Awaited<ReturnType<typeof loader>>;

export function useRootData() {
  return useRouteLoaderData<typeof loader>("root");
}

/** Old hash links (/#/pages/...) land on the same page. Runs before anything else. */
const HASH_ROUTE_SCRIPT = `(function(){function go(){var h=location.hash;if(h.indexOf('#/')===0){location.replace(h.slice(1)||'/');}}go();addEventListener('hashchange',go);})();`;

export function Layout({ children }: { children: React.ReactNode }) {
  const data = useRouteLoaderData<typeof loader>("root");
  const locale = data?.locale ?? "en";
  const theme = data?.theme ?? "system";
  const nonce = useNonce();
  return (
    <html lang={locale} data-theme={theme}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover" />
        <meta name="theme-color" content="#3c9cff" />
        <meta name="color-scheme" content={theme === "system" ? "light dark" : theme} />
        <meta name="apple-mobile-web-app-capable" content="yes" />
        <meta name="mobile-web-app-capable" content="yes" />
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: HASH_ROUTE_SCRIPT }} />
        <Meta />
        <Links />
      </head>
      <body>
        <div className="app-frame">{children}</div>
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  // Lets tests (and anyone curious) tell when the page has become interactive.
  useEffect(() => {
    document.documentElement.dataset.hydrated = "1";
  }, []);
  const data = useRouteLoaderData<typeof loader>("root");
  useUserChannel(Boolean(data?.user));
  return (
    <UiProvider>
      {data?.mode === "demo" ? <DemoBanner /> : null}
      <AppShell>
        <Outlet />
      </AppShell>
    </UiProvider>
  );
}

/** The one error boundary: a friendly page, never a stack trace. */
export function ErrorBoundary() {
  const error = useRouteError();
  const { t } = useTranslation();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  // The error page is a page too: it says when it is interactive, like every other. The browser's
  // console hears the error; on the server entry.server.tsx's handleError logged it already.
  useEffect(() => {
    document.documentElement.dataset.hydrated = "1";
    if (!notFound) console.error(error);
  }, []);
  return (
    <div className="screen">
      <header className="navbar">
        <div className="navbar-side" />
        <h1 className="navbar-title">{t("app_name")}</h1>
        <div className="navbar-side" />
      </header>
      <main className="screen-body error-page">
        <h2>{notFound ? t("not_found_title") : t("error_title")}</h2>
        <p>{notFound ? t("not_found_body") : t("error_body")}</p>
        <a className="btn btn-primary" href="/">
          {t("go_home")}
        </a>
      </main>
    </div>
  );
}
