import { useTranslation } from "react-i18next";
import { Field } from "../form";

/**
 * The login password on forms that move money out or choose where it goes: a signed-in device
 * alone cannot do either. The browser's password manager may fill it (current-password).
 */
export function ConfirmPasswordField() {
  const { t } = useTranslation("wallet");
  return (
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
  );
}
