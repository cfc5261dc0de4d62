import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useNow } from "../lib/use-now";
import { Field } from "./form";

/** Authenticator codes change every 30 seconds (RFC 6238's usual step). */
const STEP_S = 30;

/**
 * The two-factor code input: one field of six digits (numeric keyboard, the phone's one-time
 * code autofill), with the seconds left before the app shows the next code. With
 * `allowRecovery` a link switches it to a recovery code (letters and a dash), sent under the
 * same name: the API tells them apart.
 */
export function CodeField({ name = "code", allowRecovery = true, autoFocus }: { name?: string; allowRecovery?: boolean; autoFocus?: boolean }) {
  const { t } = useTranslation();
  const [recovery, setRecovery] = useState(false);
  const now = useNow(1000);
  const seconds = now === null ? null : STEP_S - (Math.floor(now / 1000) % STEP_S);
  return (
    <div className="code-field">
      {recovery ? (
        <Field
          key="recovery"
          label={t("code_input.recovery_label")}
          hint={t("code_input.recovery_hint")}
          name={name}
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={16}
          placeholder="xxxxx-xxxxx"
          autoFocus
          data-testid="recovery-code"
        />
      ) : (
        <Field
          key="totp"
          label={t("code_input.label")}
          hint={seconds === null ? t("code_input.hint") : `${t("code_input.hint")} ${t("code_input.changes_in", { seconds })}`}
          name={name}
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]*"
          maxLength={6}
          placeholder="000000"
          autoFocus={autoFocus}
          className="field-input code-input"
          data-testid="totp-code"
        />
      )}
      {allowRecovery ? (
        <button type="button" className="link code-switch" onClick={() => setRecovery((r) => !r)} data-testid="code-switch">
          {recovery ? t("code_input.use_app") : t("code_input.use_recovery")}
        </button>
      ) : null}
    </div>
  );
}
