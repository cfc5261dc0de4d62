/**
 * Capacitor: the same web app wrapped as an iOS and an Android app (README, "Install the app").
 * Capacitor's packages need Node 22 and are not dependencies of this repository, so the
 * configuration is typed here with the part of Capacitor's CapacitorConfig it uses; the
 * Capacitor CLI reads this file as it is. No native build runs in CI.
 *
 * The native shell loads the site from `server.url`, because every page is rendered by the
 * Worker and cannot be shipped as files. CAP_SERVER_URL gives it: the deployed https origin
 * for a release build, or http://<LAN address>:8787 of `npm run dev` for live reload on a
 * phone (plain http is allowed only for such a URL). Without it there is no page to load and
 * `npx cap sync` says so (public/ has no index.html).
 */
type CapacitorConfig = {
  appId: string;
  appName: string;
  webDir: string;
  server?: { url?: string; cleartext?: boolean; androidScheme?: string };
  ios?: { contentInset?: "automatic" | "scrollableAxes" | "never" | "always" };
  android?: { allowMixedContent?: boolean };
};

const serverUrl = process.env.CAP_SERVER_URL;

const config: CapacitorConfig = {
  appId: "app.proofline.mobile",
  appName: "Proofline",
  webDir: "public",
  server: serverUrl ? { url: serverUrl, cleartext: serverUrl.startsWith("http://"), androidScheme: "https" } : undefined,
  ios: { contentInset: "never" },
  android: { allowMixedContent: false },
};

export default config;
