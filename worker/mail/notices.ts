/**
 * Notices by mail (decision 138): the sign-in notices (a new device, a password reset) also go
 * to the user's VERIFIED email, in their language, after the event's batch committed (the same
 * moment the push goes out: worker/notices.ts). Other notices stay in the centre and the push.
 */
import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { notifications, profiles, users } from "../db/schema";
import type { Env } from "../env";
import { paramsOf } from "../domain/notifications/centre";
import { DEFAULT_LOCALE, localeFromLang } from "../../locales/languages";
import { logError } from "../observability/log";
import { sendMail } from "./send";
import { renderMail } from "./templates";

export const MAILED_NOTICE_KINDS = ["new_sign_in", "password_reset"] as const;

/** Mails the sign-in notices written at `created_at_ms` for these users. Never throws. */
export async function mailNewNotices(env: Env, db: Db, user_ids: readonly number[], created_at_ms: number): Promise<number> {
  try {
    if (user_ids.length === 0) return 0;
    const rows = await db
      .select({ notice: notifications, email: profiles.email, lang: users.lang, account: users.account })
      .from(notifications)
      .innerJoin(users, eq(users.id, notifications.user_id))
      .innerJoin(profiles, eq(profiles.user_id, notifications.user_id))
      .where(
        and(
          sql`${notifications.user_id} IN (SELECT value FROM json_each(${JSON.stringify(user_ids)}))`,
          eq(notifications.created_at_ms, created_at_ms),
          inArray(notifications.kind, [...MAILED_NOTICE_KINDS]),
          isNotNull(profiles.email_verified_at_ms),
        ),
      );
    for (const r of rows) {
      const params = paramsOf(r.notice);
      const locale = localeFromLang(r.lang) ?? DEFAULT_LOCALE;
      const vars = { account: r.account, device: String(params.device ?? "") || "?", ip: String(params.ip ?? ""), time: new Date(r.notice.created_at_ms) };
      await sendMail(env, db, r.email, renderMail(r.notice.kind as (typeof MAILED_NOTICE_KINDS)[number], locale, vars), Date.now());
    }
    return rows.length;
  } catch (err) {
    logError("mail.notices_failed", { err });
    return 0;
  }
}
