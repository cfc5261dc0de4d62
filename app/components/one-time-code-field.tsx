import { useEffect, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNow } from "../lib/use-now";

/**
 * The input of a code we sent by mail or SMS (decision 138): ONE field of six digits with the
 * phone's one-time-code autofill and numeric keypad. A pasted code with spaces or dashes
 * ("123 456") keeps its digits. Under it, the resend countdown runs from the server's own
 * `retry_after` (seconds, counted from when that answer arrived: `sentAt`); at 0 a "resend"
 * button takes its place. Words in every language: common.json `code_input`.
 */
export function OneTimeCodeField({
  name = "code",
  retryAfter,
  sentAt,
  onResend,
  resending = false,
  autoFocus,
}: {
  name?: string;
  /** Seconds before the server takes another send, from its last answer. */
  retryAfter: number;
  /** When that answer arrived (Date.now()), so a re-render does not restart the countdown. */
  sentAt: number;
  onResend: () => void;
  resending?: boolean;
  autoFocus?: boolean;
}) {
  const { t } = useTranslation();
  const id = useId();
  const [value, setValue] = useState("");
  const now = useNow(250);
  // A fresh send (new sentAt) empties the field: the old code no longer works.
  useEffect(() => setValue(""), [sentAt]);
  const left = now === null ? retryAfter : Math.max(0, Math.ceil((sentAt + retryAfter * 1000 - now) / 1000));
  return (
    <div className="field otp-field">
      <label htmlFor={id} className="field-label">
        {t("code_input.otp_label")}
      </label>
      <div className="field-row">
        <input
          id={id}
          name={name}
          className="field-input code-input"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]*"
          // Room for a pasted "123 456"; the digits are what is kept.
          maxLength={12}
          placeholder="000000"
          value={value}
          onChange={(e) => setValue(e.target.value.replace(/\D/g, "").slice(0, 6))}
          autoFocus={autoFocus}
          aria-describedby={`${id}-hint`}
          data-testid="otp-input"
        />
      </div>
      <p id={`${id}-hint`} className="field-hint">
        {t("code_input.otp_hint")}
      </p>
      <p className="otp-resend" aria-live="polite">
        {left > 0 ? (
          <span className="muted" data-testid="otp-countdown" data-seconds={left}>
            {t("code_input.resend_in", { seconds: left })}
          </span>
        ) : (
          <button type="button" className="link" onClick={onResend} disabled={resending} data-testid="otp-resend">
            {t("code_input.resend")}
          </button>
        )}
      </p>
    </div>
  );
}
