import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useUi } from "../ui";
import { isTimeoutError, timedFetch } from "../../lib/request-timeout";

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The file name the server chose (Content-Disposition), or a plain one. */
function fileNameOf(res: Response, fallback: string): string {
  const m = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "");
  return m ? m[1] : fallback;
}

/**
 * A date range and a download button for one CSV export (statement or orders). It fetches the
 * resource route, which adds the session's token server-side; a refusal arrives as the API's
 * envelope and is shown as a toast instead of replacing the page.
 */
export function CsvDownload({ kind }: { kind: "statement" | "orders" }) {
  const { t } = useTranslation("wallet");
  const { t: te } = useTranslation("errors");
  const ui = useUi();
  const now = Date.now();
  const [from, setFrom] = useState(() => day(Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1)));
  const [to, setTo] = useState(() => day(now));
  const [busy, setBusy] = useState(false);
  async function download() {
    setBusy(true);
    try {
      const res = await timedFetch(`/pages/me/sub/export/${kind}?${new URLSearchParams({ from, to })}`, { credentials: "same-origin" });
      if (!(res.headers.get("content-type") ?? "").startsWith("text/csv")) {
        const envelope = (await res.json().catch(() => null)) as { msg?: string } | null;
        ui.toast(envelope?.msg || t("export.failed"));
        return;
      }
      const url = URL.createObjectURL(await res.blob());
      const a = document.createElement("a");
      a.href = url;
      a.download = fileNameOf(res, `${kind}.csv`);
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 1_000);
    } catch (err) {
      ui.toast(isTimeoutError(err) ? te("request_timeout") : t("export.failed"));
    } finally {
      setBusy(false);
    }
  }
  return (
    <section className="card csv-export" data-testid={`csv-${kind}`}>
      <h2 className="card-title">{t("export.title")}</h2>
      <div className="csv-export-range">
        <label>
          <span className="muted">{t("export.from")}</span>
          <input type="date" value={from} max={to} onChange={(e) => setFrom(e.target.value)} name="from" />
        </label>
        <label>
          <span className="muted">{t("export.to")}</span>
          <input type="date" value={to} min={from} onChange={(e) => setTo(e.target.value)} name="to" />
        </label>
      </div>
      <p className="muted">{t("export.note")}</p>
      <button type="button" className="btn btn-plain btn-block" disabled={busy || !from || !to} onClick={download}>
        {t("export.download")}
      </button>
    </section>
  );
}
