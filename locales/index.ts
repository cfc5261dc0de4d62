// Bundles every language set into the Worker (Workers have no file system).
// One import per language and area; tests/unit/locales.test.ts checks this matches the folders.
import type { LocaleKey } from "./languages";
import en_common from "./en/common.json";
import en_auth from "./en/auth.json";
import en_home from "./en/home.json";
import en_me from "./en/me.json";
import en_errors from "./en/errors.json";
import en_admin from "./en/admin.json";
import en_wallet from "./en/wallet.json";
import en_trade from "./en/trade.json";
import en_notifications from "./en/notifications.json";
import en_promotions from "./en/promotions.json";
import en_service from "./en/service.json";
import en_shell from "./en/shell.json";
import en_mail from "./en/mail.json";
import es_common from "./es/common.json";
import es_auth from "./es/auth.json";
import es_home from "./es/home.json";
import es_me from "./es/me.json";
import es_errors from "./es/errors.json";
import es_admin from "./es/admin.json";
import es_wallet from "./es/wallet.json";
import es_trade from "./es/trade.json";
import es_notifications from "./es/notifications.json";
import es_promotions from "./es/promotions.json";
import es_service from "./es/service.json";
import es_shell from "./es/shell.json";
import es_mail from "./es/mail.json";
import th_common from "./th/common.json";
import th_auth from "./th/auth.json";
import th_home from "./th/home.json";
import th_me from "./th/me.json";
import th_errors from "./th/errors.json";
import th_admin from "./th/admin.json";
import th_wallet from "./th/wallet.json";
import th_trade from "./th/trade.json";
import th_notifications from "./th/notifications.json";
import th_promotions from "./th/promotions.json";
import th_service from "./th/service.json";
import th_shell from "./th/shell.json";
import th_mail from "./th/mail.json";
import de_common from "./de/common.json";
import de_auth from "./de/auth.json";
import de_home from "./de/home.json";
import de_me from "./de/me.json";
import de_errors from "./de/errors.json";
import de_admin from "./de/admin.json";
import de_wallet from "./de/wallet.json";
import de_trade from "./de/trade.json";
import de_notifications from "./de/notifications.json";
import de_promotions from "./de/promotions.json";
import de_service from "./de/service.json";
import de_shell from "./de/shell.json";
import de_mail from "./de/mail.json";
import it_common from "./it/common.json";
import it_auth from "./it/auth.json";
import it_home from "./it/home.json";
import it_me from "./it/me.json";
import it_errors from "./it/errors.json";
import it_admin from "./it/admin.json";
import it_wallet from "./it/wallet.json";
import it_trade from "./it/trade.json";
import it_notifications from "./it/notifications.json";
import it_promotions from "./it/promotions.json";
import it_service from "./it/service.json";
import it_shell from "./it/shell.json";
import it_mail from "./it/mail.json";
import pt_common from "./pt/common.json";
import pt_auth from "./pt/auth.json";
import pt_home from "./pt/home.json";
import pt_me from "./pt/me.json";
import pt_errors from "./pt/errors.json";
import pt_admin from "./pt/admin.json";
import pt_wallet from "./pt/wallet.json";
import pt_trade from "./pt/trade.json";
import pt_notifications from "./pt/notifications.json";
import pt_promotions from "./pt/promotions.json";
import pt_service from "./pt/service.json";
import pt_shell from "./pt/shell.json";
import pt_mail from "./pt/mail.json";
import ja_common from "./ja/common.json";
import ja_auth from "./ja/auth.json";
import ja_home from "./ja/home.json";
import ja_me from "./ja/me.json";
import ja_errors from "./ja/errors.json";
import ja_admin from "./ja/admin.json";
import ja_wallet from "./ja/wallet.json";
import ja_trade from "./ja/trade.json";
import ja_notifications from "./ja/notifications.json";
import ja_promotions from "./ja/promotions.json";
import ja_service from "./ja/service.json";
import ja_shell from "./ja/shell.json";
import ja_mail from "./ja/mail.json";
import zhHant_common from "./zh-Hant/common.json";
import zhHant_auth from "./zh-Hant/auth.json";
import zhHant_home from "./zh-Hant/home.json";
import zhHant_me from "./zh-Hant/me.json";
import zhHant_errors from "./zh-Hant/errors.json";
import zhHant_admin from "./zh-Hant/admin.json";
import zhHant_wallet from "./zh-Hant/wallet.json";
import zhHant_trade from "./zh-Hant/trade.json";
import zhHant_notifications from "./zh-Hant/notifications.json";
import zhHant_promotions from "./zh-Hant/promotions.json";
import zhHant_service from "./zh-Hant/service.json";
import zhHant_shell from "./zh-Hant/shell.json";
import zhHant_mail from "./zh-Hant/mail.json";
import vi_common from "./vi/common.json";
import vi_auth from "./vi/auth.json";
import vi_home from "./vi/home.json";
import vi_me from "./vi/me.json";
import vi_errors from "./vi/errors.json";
import vi_admin from "./vi/admin.json";
import vi_wallet from "./vi/wallet.json";
import vi_trade from "./vi/trade.json";
import vi_notifications from "./vi/notifications.json";
import vi_promotions from "./vi/promotions.json";
import vi_service from "./vi/service.json";
import vi_shell from "./vi/shell.json";
import vi_mail from "./vi/mail.json";
import zhHans_common from "./zh-Hans/common.json";
import zhHans_auth from "./zh-Hans/auth.json";
import zhHans_home from "./zh-Hans/home.json";
import zhHans_me from "./zh-Hans/me.json";
import zhHans_errors from "./zh-Hans/errors.json";
import zhHans_admin from "./zh-Hans/admin.json";
import zhHans_wallet from "./zh-Hans/wallet.json";
import zhHans_trade from "./zh-Hans/trade.json";
import zhHans_notifications from "./zh-Hans/notifications.json";
import zhHans_promotions from "./zh-Hans/promotions.json";
import zhHans_service from "./zh-Hans/service.json";
import zhHans_shell from "./zh-Hans/shell.json";
import zhHans_mail from "./zh-Hans/mail.json";

export const NAMESPACES = ["common", "auth", "home", "me", "errors", "admin", "wallet", "trade", "notifications", "promotions", "service", "shell", "mail"] as const;
export type Namespace = (typeof NAMESPACES)[number];
export type Messages = { [key: string]: string | Messages };

export const RESOURCES: Record<LocaleKey, Record<Namespace, Messages>> = {
  "en": { common: en_common, auth: en_auth, home: en_home, me: en_me, errors: en_errors, admin: en_admin, wallet: en_wallet, trade: en_trade, notifications: en_notifications, promotions: en_promotions, service: en_service, shell: en_shell, mail: en_mail },
  "es": { common: es_common, auth: es_auth, home: es_home, me: es_me, errors: es_errors, admin: es_admin, wallet: es_wallet, trade: es_trade, notifications: es_notifications, promotions: es_promotions, service: es_service, shell: es_shell, mail: es_mail },
  "th": { common: th_common, auth: th_auth, home: th_home, me: th_me, errors: th_errors, admin: th_admin, wallet: th_wallet, trade: th_trade, notifications: th_notifications, promotions: th_promotions, service: th_service, shell: th_shell, mail: th_mail },
  "de": { common: de_common, auth: de_auth, home: de_home, me: de_me, errors: de_errors, admin: de_admin, wallet: de_wallet, trade: de_trade, notifications: de_notifications, promotions: de_promotions, service: de_service, shell: de_shell, mail: de_mail },
  "it": { common: it_common, auth: it_auth, home: it_home, me: it_me, errors: it_errors, admin: it_admin, wallet: it_wallet, trade: it_trade, notifications: it_notifications, promotions: it_promotions, service: it_service, shell: it_shell, mail: it_mail },
  "pt": { common: pt_common, auth: pt_auth, home: pt_home, me: pt_me, errors: pt_errors, admin: pt_admin, wallet: pt_wallet, trade: pt_trade, notifications: pt_notifications, promotions: pt_promotions, service: pt_service, shell: pt_shell, mail: pt_mail },
  "ja": { common: ja_common, auth: ja_auth, home: ja_home, me: ja_me, errors: ja_errors, admin: ja_admin, wallet: ja_wallet, trade: ja_trade, notifications: ja_notifications, promotions: ja_promotions, service: ja_service, shell: ja_shell, mail: ja_mail },
  "zh-Hant": { common: zhHant_common, auth: zhHant_auth, home: zhHant_home, me: zhHant_me, errors: zhHant_errors, admin: zhHant_admin, wallet: zhHant_wallet, trade: zhHant_trade, notifications: zhHant_notifications, promotions: zhHant_promotions, service: zhHant_service, shell: zhHant_shell, mail: zhHant_mail },
  "vi": { common: vi_common, auth: vi_auth, home: vi_home, me: vi_me, errors: vi_errors, admin: vi_admin, wallet: vi_wallet, trade: vi_trade, notifications: vi_notifications, promotions: vi_promotions, service: vi_service, shell: vi_shell, mail: vi_mail },
  "zh-Hans": { common: zhHans_common, auth: zhHans_auth, home: zhHans_home, me: zhHans_me, errors: zhHans_errors, admin: zhHans_admin, wallet: zhHans_wallet, trade: zhHans_trade, notifications: zhHans_notifications, promotions: zhHans_promotions, service: zhHans_service, shell: zhHans_shell, mail: zhHans_mail },
};
