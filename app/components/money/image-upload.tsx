import { useFetcher } from "@remix-run/react";
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { useUi } from "../ui";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";

/** The product's limit: pictures must be under 1M. The server checks it again. */
export const MAX_IMAGE_BYTES = 1024 * 1024;

type Uploaded = { id: string; url: string; width: number; height: number };

/**
 * Picks a picture, checks its size here first ('Please upload pictures smaller than 1M!'),
 * sends it through the page's action (intent=upload, which forwards it to /api/common/upload)
 * and shows a preview. The form field `name` carries the answered url ("/files/<id>").
 */
export function ImageUpload({ label, hint, value, onChange, name = "image" }: { label: string; hint?: string; value: string; onChange: (url: string) => void; name?: string }) {
  const { t } = useTranslation("wallet");
  const { t: te } = useTranslation("errors");
  const ui = useUi();
  const id = useId();
  const fetcher = useFetcher<PageEnvelope<Uploaded>>();
  const busy = fetcher.state !== "idle";
  useEnvelope(fetcher.data, (data) => onChange(data.url));
  return (
    <div className="field">
      <span className="field-label" id={`${id}-label`}>
        {label}
      </span>
      <input type="hidden" name={name} value={value} />
      <label className={value ? "m-upload m-upload-done" : "m-upload"} aria-busy={busy}>
        {value ? (
          <img src={value} alt={t("upload.preview_alt")} className="m-upload-preview" data-testid="upload-preview" />
        ) : (
          <span className="m-upload-empty">
            <svg viewBox="0 0 24 24" width="30" height="30" aria-hidden="true">
              <path d="M4 16l4-4 3 3 5-6 4 5M4 5h16v14H4z" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinejoin="round" />
            </svg>
            <span>{busy ? t("upload.uploading") : t("upload.choose")}</span>
          </span>
        )}
        {value ? <span className="m-upload-change">{busy ? t("upload.uploading") : t("upload.change")}</span> : null}
        <input
          type="file"
          accept="image/jpeg,image/png,image/webp,image/*"
          className="m-visually-hidden"
          data-testid="upload-input"
          aria-labelledby={`${id}-label`}
          disabled={busy}
          onChange={(e) => {
            const input = e.currentTarget;
            const file = input.files?.[0];
            input.value = "";
            if (!file) return;
            if (file.size > MAX_IMAGE_BYTES) return ui.toast(te("upload_too_large"));
            if (file.type && !file.type.startsWith("image/")) return ui.toast(te("upload_not_image"));
            const body = new FormData();
            body.append("intent", "upload");
            body.append("file", file);
            fetcher.submit(body, { method: "post", encType: "multipart/form-data" });
          }}
        />
      </label>
      {hint ? <p className="field-hint">{hint}</p> : null}
    </div>
  );
}
