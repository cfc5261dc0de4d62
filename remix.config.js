/** Remix classic compiler. The Worker (worker/index.ts, bundled by wrangler) imports the
 * server build; Remix's esbuild must not bundle the Durable Objects. */
import { appRoutes } from "./app/routes.js";

/** @type {import('@remix-run/dev').AppConfig} */
export default {
  // Every URL is listed in app/routes.js; no file under app/routes becomes a route by its name.
  ignoredRouteFiles: ["**/*"],
  routes: appRoutes,
  serverBuildPath: "build/server/index.js",
  assetsBuildDirectory: "public/build",
  publicPath: "/build/",
  serverConditions: ["workerd", "worker", "browser"],
  serverDependenciesToBundle: "all",
  serverMainFields: ["browser", "module", "main"],
  serverMinify: false,
  serverModuleFormat: "esm",
  serverPlatform: "neutral",
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    // Off on purpose: with it, a client navigation right after a fetcher action sometimes aborted
    // its /__manifest request and left a blank page (README, Decisions). The whole manifest is
    // small (about 40 routes), so it ships up front.
    v3_lazyRouteDiscovery: false,
    v3_singleFetch: true,
  },
};
