/**
 * Capacitor: the same web app wrapped as an iOS and an Android app (README, "Install the app").
 * Capacitor's packages need Node 22 and are not dependencies of this repository, so the
 * configuration is typed here with the part of Capacitor's CapacitorConfig it uses; the
 * Capacitor CLI reads this file as it is. No native build runs in CI.
 *
 * The native shell loads the deployed site (`server.url`), because pages are rendered by the
 * Worker and cannot be shipped as files; `webDir` holds what the shell shows if that fails.
 * CAP_SERVER_URL points it at a machine on the LAN for live reload during development.
 */
type CapacitorConfig = {
  appId: string;
  appName: string;
  webDir: string;
  server?: { url?: string; cleartext?: boolean; androidScheme?: string; allowNavigation?: string[] };
  ios?: { contentInset?: "automatic" | "scrollableAxes" | "never" | "always" };
  android?: { allowMixedContent?: boolean };
};

const serverUrl = process.env.CAP_SERVER_URL;

const config: CapacitorConfig = {
  appId: "app.proofline.mobile",
  appName: "Proofline",
  webDir: "public",
  server: serverUrl
    ? // Live reload: plain http to a dev machine is allowed only in this mode.
      { url: serverUrl, cleartext: serverUrl.startsWith("http://"), androidScheme: "https" }
    : { url: process.env.CAP_APP_URL ?? "https://proofline.app", androidScheme: "https" },
  ios: { contentInset: "never" },
  android: { allowMixedContent: false },
};

export default config;
