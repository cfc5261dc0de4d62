import { useTranslation } from "react-i18next";
import { useCopy } from "../ui";

/** A value shown in full (monospace when it is an address or a reference) with a Copy button. */
export function CopyValue({ value, mono = true, testId, label }: { value: string; mono?: boolean; testId?: string; label?: string }) {
  const { t } = useTranslation();
  const copy = useCopy();
  return (
    <span className="m-copy">
      <span className={mono ? "m-mono m-copy-text" : "m-copy-text"} data-testid={testId}>
        {value}
      </span>
      <button type="button" className="m-copy-btn" onClick={() => copy(value)} aria-label={label ? `${t("copy")}: ${label}` : t("copy")}>
        {t("copy")}
      </button>
    </span>
  );
}
