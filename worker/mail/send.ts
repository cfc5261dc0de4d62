/**
 * Sending mail through Cloudflare Email Service (the Workers `send_email` binding, `EMAIL` in
 * wrangler.toml; decision 139). The object form of `send` is used: the binding builds the MIME.
 * Locally and in tests Miniflare simulates the binding (nothing leaves the machine), and every
 * mail is also kept in the local outbox (./outbox.ts) outside production.
 */
import type { Db } from "../db/client";
import type { Env } from "../env";
import { logError, logWarn } from "../observability/log";
import { keepInOutbox, keepsOutbox } from "./outbox";
import type { Rendered } from "./templates";

/** The sender when MAIL_FROM is not set: a local name; a deployment sets its onboarded domain's address. */
export const DEFAULT_MAIL_FROM = "noreply@proofline.example";
export const MAIL_FROM_NAME = "Proofline";

type MailEnv = Pick<Env, "EMAIL" | "MAIL_FROM" | "APP_ENV">;

/** `sent`: the binding took it; `kept`: only the local outbox has it; `failed`: neither. */
export type MailOutcome = "sent" | "kept" | "failed";

export async function sendMail(env: MailEnv, db: Db, to: string, mail: Rendered, now_ms: number): Promise<MailOutcome> {
  let sent = false;
  if (env.EMAIL) {
    try {
      await env.EMAIL.send({ from: { name: MAIL_FROM_NAME, email: env.MAIL_FROM || DEFAULT_MAIL_FROM }, to, subject: mail.subject, text: mail.text, html: mail.html });
      sent = true;
    } catch (err) {
      // An address the binding refuses, or Email Service down: the caller's answer stays as it is.
      logError("mail.send_failed", { err });
    }
  } else if (!keepsOutbox(env)) {
    logWarn("mail.no_binding", {});
  }
  const kept = await keepInOutbox(db, env, { channel: "email", to, subject: mail.subject, text: mail.text, html: mail.html }, now_ms);
  return sent ? "sent" : kept ? "kept" : "failed";
}
