import { useId, useState, type InputHTMLAttributes } from "react";
import { useTranslation } from "react-i18next";

/** A labelled input with an optional rule shown under it. Passwords get a show/hide toggle. */
export function Field({ label, hint, type = "text", ...input }: { label: string; hint?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const { t } = useTranslation();
  const id = useId();
  const [shown, setShown] = useState(false);
  const isPassword = type === "password";
  return (
    <div className="field">
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <div className="field-row">
        <input id={id} className="field-input" type={isPassword && shown ? "text" : type} aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
        {isPassword ? (
          <button type="button" className="field-eye" onClick={() => setShown((s) => !s)} aria-label={shown ? t("hide_password") : t("show_password")}>
            {shown ? "◉" : "◎"}
          </button>
        ) : null}
      </div>
      {hint ? (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

/** The product's 'Please enter complete information' check, before anything is sent. */
export function missingFields(form: HTMLFormElement, names: string[]): boolean {
  const data = new FormData(form);
  return names.some((n) => String(data.get(n) ?? "").trim() === "");
}
