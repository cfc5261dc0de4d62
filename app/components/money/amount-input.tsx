import { useId, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { useUi } from "../ui";
import { cleanAmountInput } from "../../lib/money";

/**
 * A USDT amount field: decimal keyboard, at most 2 decimals (more is refused with the
 * server's own message), a decimal comma accepted. `action` sits inside the field (e.g. 'All').
 */
export function AmountInput({
  label,
  value,
  onChange,
  placeholder,
  hint,
  action,
  name = "amount",
  testId,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  hint?: ReactNode;
  action?: ReactNode;
  name?: string;
  testId?: string;
}) {
  const { t } = useTranslation("errors");
  const ui = useUi();
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <div className="field-row m-amount-row">
        <input
          id={id}
          name={name}
          className="field-input m-amount-input"
          type="text"
          inputMode="decimal"
          autoComplete="off"
          placeholder={placeholder}
          value={value}
          data-testid={testId}
          aria-describedby={hint ? `${id}-hint` : undefined}
          onChange={(e) => {
            const next = cleanAmountInput(e.target.value);
            if (next === "decimals") ui.toast(t("amount_decimals"));
            else if (next !== null) onChange(next);
          }}
        />
        <span className="m-amount-unit">USDT</span>
        {action}
      </div>
      {hint ? (
        <div id={`${id}-hint`} className="field-hint">
          {hint}
        </div>
      ) : null}
    </div>
  );
}
