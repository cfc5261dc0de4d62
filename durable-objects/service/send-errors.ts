/**
 * A message sent over the conversation's socket and refused: the `send_error` its sender gets
 * (and only its sender), with the same error keys and words as `/api/service/send`, in the
 * socket's language.
 */
import type { LocaleKey } from "../../locales/languages";
import type { SendResult } from "../../worker/domain/service/messages";
import { checkSend, MAX_TEXT_CHARS } from "../../worker/domain/service/rules";
import { translate } from "../../worker/i18n";
import type { ServerMessage } from "../protocol";

type Wire = { client_message_id: string; text?: string; upload_id?: string };

function sendError(client_message_id: string, key: string, locale: LocaleKey, vars: Record<string, string | number> = {}, extra: { retry_after_ms?: number; max?: number } = {}): ServerMessage {
  return { type: "send_error", client_message_id, error: key, msg: translate(locale, `errors.${key}`, vars), ...extra };
}

const SHAPE_KEYS = { client_id_invalid: "service_client_id_invalid", empty: "service_text_empty", picture_unknown: "service_picture_unknown" } as const;

export const sendErrorOf = {
  /** The message's shape (client id, exactly one of text and picture, text length); null when it is fine. */
  shape(m: Wire, locale: LocaleKey): ServerMessage | null {
    const checked = checkSend(m);
    if (checked.status === "ok") return null;
    if (checked.status === "too_long") return sendError(m.client_message_id, "service_text_too_long", locale, { max: MAX_TEXT_CHARS }, { max: MAX_TEXT_CHARS });
    if (checked.status === "both") return sendError(m.client_message_id, "invalid_field", locale, { field: "text" });
    return sendError(m.client_message_id, SHAPE_KEYS[checked.status], locale);
  },

  /** The checked body (call after `shape` answered null). */
  body(m: Wire): { text: string | null; upload_id: string | null } {
    const checked = checkSend(m);
    return checked.status === "ok" ? { text: checked.text, upload_id: checked.upload_id } : { text: null, upload_id: null };
  },

  /** What the sequencer refused. */
  result(client_message_id: string, r: Exclude<SendResult, { status: "ok" }>, locale: LocaleKey): ServerMessage {
    if (r.status === "rate_limited") return sendError(client_message_id, "service_rate_limited", locale, {}, { retry_after_ms: r.retry_after_ms });
    if (r.status === "closed") return sendError(client_message_id, "service_closed", locale);
    if (r.status === "picture_unknown") return sendError(client_message_id, "service_picture_unknown", locale);
    return sendError(client_message_id, "not_found", locale);
  },
};
