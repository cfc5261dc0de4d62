import { useFetcher, useNavigate } from "@remix-run/react";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useFieldGuard } from "../form";
import { AppLink } from "../nav";
import { useUi } from "../ui";
import { ImageUpload } from "./image-upload";
import { Notice } from "./notice";

/** The navbar link of both recharge pages. */
export function RechargeRecordsLink() {
  const { t } = useTranslation("wallet");
  return (
    <AppLink to="/pages/me/sub/recharge-record" className="m-navbar-action">
      {t("records")}
    </AppLink>
  );
}

/**
 * The report half of a recharge page (crypto or bank): the page's own fields, then the
 * screenshot, the warning, the review note and the submit button. A missing field is said
 * before anything is sent; success clears the form (`onDone`) and opens the records.
 */
export function RechargeReportForm({
  title,
  request_key,
  required,
  image,
  onImage,
  screenshotLabel,
  warning,
  submitLabel,
  onDone,
  children,
}: {
  title: string;
  request_key: string;
  required: string[];
  image: string;
  onImage: (url: string) => void;
  screenshotLabel: string;
  warning: string;
  submitLabel: string;
  onDone: () => void;
  children: ReactNode;
}) {
  const { t } = useTranslation("wallet");
  const ui = useUi();
  const guardFields = useFieldGuard();
  const navigate = useNavigate();
  const fetcher = useFetcher<PageEnvelope>();
  const busy = fetcher.state !== "idle";
  useEnvelope(fetcher.data, (_data, msg) => {
    ui.toast(msg);
    onDone();
    navigate("/pages/me/sub/recharge-record");
  });
  return (
    <fetcher.Form
      method="post"
      className="card form"
      noValidate
      onSubmit={guardFields([...required, "image"])}
    >
      <h2 className="card-title">{title}</h2>
      <input type="hidden" name="intent" value="recharge" />
      <input type="hidden" name="request_key" value={request_key} />
      {children}
      <ImageUpload label={screenshotLabel} hint={t("upload.hint")} value={image} onChange={onImage} />
      <Notice tone="warn" title={t("stored.warning_title")} testId="recharge-warning">
        <p>{warning}</p>
      </Notice>
      <p className="muted">{t("stored.review_note")}</p>
      <button type="submit" className="btn btn-primary btn-block" disabled={busy} data-testid="recharge-submit">
        {submitLabel}
      </button>
    </fetcher.Form>
  );
}
