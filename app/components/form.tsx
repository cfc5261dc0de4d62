import { useCallback, useId, useState, type FormEvent, type InputHTMLAttributes } from "react";
import { useTranslation } from "react-i18next";
import { useUi } from "./ui";

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

/**
 * A form's `onSubmit` for the check above: a submission with any of `names` empty is stopped and
 * the user told 'Please enter complete information'. One rule for every form that asks it.
 */
export function useFieldGuard(): (names: readonly string[]) => (e: FormEvent<HTMLFormElement>) => void {
  const ui = useUi();
  const { t } = useTranslation();
  return useCallback(
    (names) => (e) => {
      if (!missingFields(e.currentTarget, [...names])) return;
      e.preventDefault();
      ui.toast(t("incomplete"));
    },
    [ui, t],
  );
}
