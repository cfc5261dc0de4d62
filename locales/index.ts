// Bundles every language set into the Worker (Workers have no file system).
// One import per language and area; tests/unit/locales.test.ts checks this matches the folders.
import type { LocaleKey } from "./languages";
import en_common from "./en/common.json";
import en_auth from "./en/auth.json";
import en_home from "./en/home.json";
import en_me from "./en/me.json";
import en_errors from "./en/errors.json";
import en_admin from "./en/admin.json";

export const NAMESPACES = ["common", "auth", "home", "me", "errors", "admin"] as const;
export type Namespace = (typeof NAMESPACES)[number];
export type Messages = { [key: string]: string | Messages };

export const RESOURCES: Record<LocaleKey, Record<Namespace, Messages>> = {
  "en": { common: en_common, auth: en_auth, home: en_home, me: en_me, errors: en_errors, admin: en_admin },
  "es": { common: en_common, auth: en_auth, home: en_home, me: en_me, errors: en_errors, admin: en_admin },
  "th": { common: en_common, auth: en_auth, home: en_home, me: en_me, errors: en_errors, admin: en_admin },
  "de": { common: en_common, auth: en_auth, home: en_home, me: en_me, errors: en_errors, admin: en_admin },
  "it": { common: en_common, auth: en_auth, home: en_home, me: en_me, errors: en_errors, admin: en_admin },
  "pt": { common: en_common, auth: en_auth, home: en_home, me: en_me, errors: en_errors, admin: en_admin },
  "ja": { common: en_common, auth: en_auth, home: en_home, me: en_me, errors: en_errors, admin: en_admin },
  "zh-Hant": { common: en_common, auth: en_auth, home: en_home, me: en_me, errors: en_errors, admin: en_admin },
  "vi": { common: en_common, auth: en_auth, home: en_home, me: en_me, errors: en_errors, admin: en_admin },
  "zh-Hans": { common: en_common, auth: en_auth, home: en_home, me: en_me, errors: en_errors, admin: en_admin },
};
