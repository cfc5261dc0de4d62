import type { UserChannel } from "../durable-objects/user-channel/user-channel";

/** Bindings and variables of the one Worker (see wrangler.toml). */
export interface Env {
  DB: D1Database;
  UPLOADS: R2Bucket;
  ASSETS: Fetcher;
  USER_CHANNEL: DurableObjectNamespace<UserChannel>;
  /** "local" under `npm start` / tests; "production" when deployed. */
  APP_ENV: string;
}
