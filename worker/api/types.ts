import type { Db } from "../db/client";
import type { Env } from "../env";
import type { LocaleKey } from "../../locales/languages";
import type { User } from "../domain/identity/users";
import type { Operator } from "../domain/identity/operators";

/** Hono generics shared by every sub-app. */
export type AppEnv = {
  Bindings: Env;
  Variables: {
    db: Db;
    locale: LocaleKey;
    /** The request's fields: query string merged with a JSON, urlencoded or multipart body. */
    input: Record<string, unknown>;
    user: User;
    operator: Operator;
    session_token_hash: string;
    /** An operator session's last second-factor confirmation (step-up clock); null: enrolling. */
    step_up_at_ms: number | null;
    /** Cookies for the answer (envelope.ts `queueCookie`). */
    set_cookies: string[];
    /** The envelope answered (envelope.ts), which carries the API's headers already. */
    envelope: Response;
  };
};
