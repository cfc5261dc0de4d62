/** Bindings and variables of the one Worker (see wrangler.toml). */
export interface Env {
  DB: D1Database;
  UPLOADS: R2Bucket;
  ASSETS: Fetcher;
  /** "local" under `npm start` / tests; "production" when deployed. */
  APP_ENV: string;
}
