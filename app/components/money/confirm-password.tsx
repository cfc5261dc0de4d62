import { useTranslation } from "react-i18next";
import { useTwoFactorOn } from "../../lib/two-factor";
import { CodeField } from "../code-field";
import { Field } from "../form";

/**
 * The login password on forms that move money out or choose where it goes: a signed-in device
 * alone cannot do either. The browser's password manager may fill it (current-password). With
 * two-factor on, the authenticator code follows it.
 */
export function ConfirmPasswordField() {
  const { t } = useTranslation("wallet");
  const twoFactor = useTwoFactorOn();
  return (
    <>
      <Field
        label={t("confirm.password")}
        name="password"
        type="password"
        autoComplete="current-password"
        placeholder={t("confirm.password_placeholder")}
        hint={t("confirm.password_hint")}
        maxLength={64}
        data-testid="confirm-password"
      />
      {twoFactor ? <CodeField /> : null}
    </>
  );
}
