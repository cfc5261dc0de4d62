import { useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useUi } from "../ui";
import { charsLeft, MAX_TEXT } from "../../lib/service";

/** The upload rule (< 1 MiB, pictures only), checked here first; the server checks it again. */
export const MAX_PICTURE_BYTES = 1024 * 1024;

/**
 * The message box: text (Enter sends, Shift+Enter is a new line), a picture button, and a
 * counter that appears near the 2,000-character limit and turns red past it.
 */
export type Insert = { text: string; n: number };

export function Composer({ onText, onPicture, onTyping, disabled, insert }: { onText: (text: string) => void; onPicture: (file: File) => void; onTyping: () => void; disabled?: boolean; insert?: Insert | null }) {
  const { t } = useTranslation("service");
  const { t: te } = useTranslation("errors");
  const ui = useUi();
  const id = useId();
  const [text, setText] = useState("");
  const box = useRef<HTMLTextAreaElement>(null);
  // A canned reply picked in the console goes into the box, to be read and sent by a person.
  // Each pick once: a box drawn again (after a reopen) must not bring back the last one.
  const applied = useRef(insert?.n ?? 0);
  useEffect(() => {
    if (!insert || insert.n === applied.current) return;
    applied.current = insert.n;
    setText((now) => (now.trim() ? `${now}\n${insert.text}` : insert.text));
    box.current?.focus();
  }, [insert]);
  const left = charsLeft(text);
  const over = left !== null && left < 0;
  const empty = text.trim() === "";

  function submit() {
    if (empty || over || disabled) return;
    onText(text.trim());
    setText("");
    box.current?.focus();
  }

  function pick(file: File | undefined) {
    if (!file) return;
    if (file.size > MAX_PICTURE_BYTES) return ui.toast(te("upload_too_large"));
    if (file.type && !file.type.startsWith("image/")) return ui.toast(te("upload_not_image"));
    onPicture(file);
  }

  return (
    <form
      className="sv-composer"
      // Each send clears the box, so a second tap sends nothing; quick messages in a row stay quick.
      data-tap-guard="off"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <label className="sv-attach" title={t("attach_picture")}>
        <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">
          <path d="M4 16l4-4 3 3 5-6 4 5M4 5h16v14H4z" fill="none" stroke="currentColor" strokeWidth="1.7" strokeLinejoin="round" />
        </svg>
        <span className="sv-sr">{t("attach_picture")}</span>
        <input
          type="file"
          accept="image/jpeg,image/png,image/webp"
          className="sv-sr"
          data-testid="sv-picture-input"
          disabled={disabled}
          onChange={(e) => {
            const input = e.currentTarget;
            const file = input.files?.[0];
            input.value = "";
            pick(file);
          }}
        />
      </label>
      <div className="sv-input-wrap">
        <label htmlFor={`${id}-text`} className="sv-sr">
          {t("composer_label")}
        </label>
        <textarea
          id={`${id}-text`}
          ref={box}
          className="sv-input"
          rows={1}
          value={text}
          placeholder={t("composer_placeholder")}
          aria-describedby={left !== null ? `${id}-count` : undefined}
          aria-invalid={over || undefined}
          data-testid="sv-text"
          disabled={disabled}
          onChange={(e) => {
            setText(e.currentTarget.value);
            onTyping();
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              submit();
            }
          }}
        />
        {left !== null ? (
          <span id={`${id}-count`} className={over ? "sv-counter sv-counter-over" : "sv-counter"} data-testid="sv-counter" aria-live="polite">
            {over ? t("chars_over", { count: -left, max: MAX_TEXT }) : t("chars_left", { count: left })}
          </span>
        ) : null}
      </div>
      <button type="submit" className="btn btn-primary sv-send" disabled={empty || over || disabled} data-testid="sv-send">
        {t("send")}
      </button>
    </form>
  );
}
