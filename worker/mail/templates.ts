/**
 * Every mail and SMS the Worker sends, in the reader's language: plain text plus simple HTML,
 * from the words in locales/<lng>/mail.json (`<kind>.subject`, `<kind>.body`, one paragraph a
 * line, and the shared `footer`). Values are inserted as text and escaped in the HTML, so a
 * name or device label can never become markup.
 */
import { translate, type MessageVars } from "../i18n";
import type { LocaleKey } from "../../locales/languages";

export const MAIL_KINDS = ["code_verify_email", "code_reset_password", "email_changed", "phone_changed", "password_reset", "new_sign_in"] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

export type Rendered = { subject: string; text: string; html: string };

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** Mail `kind` in `locale`, with `vars` (a code, an account, a device...). */
export function renderMail(kind: MailKind, locale: LocaleKey, vars: MessageVars): Rendered {
  const subject = translate(locale, `mail.${kind}.subject`, vars);
  const paragraphs = translate(locale, `mail.${kind}.body`, vars).split("\n").filter((line) => line.trim() !== "");
  const footer = translate(locale, "mail.footer");
  const code = typeof vars.code === "string" ? vars.code : null;
  const text = [...paragraphs, "", "—", footer].join("\n");
  const html = [
    `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    `<body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111;max-width:560px;margin:0 auto;padding:16px">`,
    `<h1 style="font-size:18px">${escapeHtml(subject)}</h1>`,
    ...(code ? [`<p style="font-size:28px;font-weight:700;letter-spacing:6px;font-family:ui-monospace,monospace">${escapeHtml(code)}</p>`] : []),
    ...paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    `<hr><p style="color:#666;font-size:12px">${escapeHtml(footer)}</p>`,
    `</body></html>`,
  ].join("\n");
  return { subject, text, html };
}

/** An SMS: one short line, the code first (phones show it in the notification). */
export function renderSms(locale: LocaleKey, vars: { code: string; minutes: number }): string {
  return translate(locale, "mail.sms_code", vars);
}
