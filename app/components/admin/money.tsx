import { Link, useFetcher, useLocation, useRouteLoaderData } from "@remix-run/react";
import { useState, type FormEvent, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Empty } from "../nav";
import { Modal, useUi } from "../ui";
import { formatDateTime } from "../../lib/format";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useAction, QUEUE_ROWS } from "../../lib/admin-console";
import { formatSigned } from "../../../worker/domain/money/units";

/** Parts shared by the console's money pages (queues, users, adjustments, settings, ledger). */

/** A signed amount: "+12.50" in green, "-3.00" in red. */
export function Signed({ micro }: { micro: number }) {
  const { i18n } = useTranslation();
  return <span className={micro < 0 ? "amount-neg" : micro > 0 ? "amount-pos" : undefined}>{formatSigned(micro, i18n.language)}</span>;
}

/** Tabs that switch `?status=` (and reset the page). The first status is the default. */
export function StatusTabs({ statuses, current, label }: { statuses: readonly string[]; current: string; label: string }) {
  const { t } = useTranslation("admin");
  const { search } = useLocation();
  return (
    <nav className="admin-tabs" aria-label={label}>
      {statuses.map((s) => {
        const params = new URLSearchParams(search);
        params.set("status", s);
        params.delete("page");
        const active = s === current;
        return (
          <Link key={s} to={`?${params}`} className={active ? "admin-tab active" : "admin-tab"} aria-current={active ? "page" : undefined} preventScrollReset>
            {t(`status.${s}`)}
          </Link>
        );
      })}
    </nav>
  );
}

/** Previous / "Page n / m" / next, keeping the other query parameters. */
export function Pager({ page, total, rows }: { page: number; total: number; rows: number }) {
  const { t } = useTranslation("admin");
  const { search } = useLocation();
  const pages = Math.max(1, Math.ceil(total / rows));
  const link = (p: number) => {
    const params = new URLSearchParams(search);
    params.set("page", String(p));
    return `?${params}`;
  };
  if (pages <= 1 && page <= 1) return null;
  return (
    <nav className="pager">
      {page > 1 ? (
        <Link to={link(page - 1)} data-testid="pager-prev">
          {t("prev")}
        </Link>
      ) : (
        <span />
      )}
      <span>{t("page_of", { page: `${page} / ${pages}` })}</span>
      {page < pages ? (
        <Link to={link(page + 1)} data-testid="pager-next">
          {t("next")}
        </Link>
      ) : (
        <span />
      )}
    </nav>
  );
}

/** A screenshot thumbnail; a click shows it full size over the page (Escape or a click closes). */
export function Screenshot({ src, alt }: { src: string; alt: string }) {
  const { t } = useTranslation("admin");
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="shot" onClick={() => setOpen(true)} title={t("shot_open")} data-testid="deposit-shot">
        <img src={src} alt={alt} loading="lazy" />
      </button>
      {open ? (
        // A modal (ui.tsx) that fills the screen: Escape or a click anywhere but its bar closes it, and the thumbnail has focus again.
        <Modal className="lightbox" aria-label={alt} onClose={() => setOpen(false)} onClick={() => setOpen(false)} data-testid="lightbox">
          <img src={src} alt={alt} />
          <div className="lightbox-bar" onClick={(e) => e.stopPropagation()}>
            <a href={src} target="_blank" rel="noreferrer" className="btn btn-plain">
              {t("shot_new_tab")}
            </a>
            <button type="button" className="btn btn-primary" onClick={() => setOpen(false)} data-autofocus>
              {t("close")}
            </button>
          </div>
        </Modal>
      ) : null}
    </>
  );
}

/**
 * An inline form with one required text input (a reject reason, a payout reference) and its
 * button. An empty value is refused before anything is sent; `confirm` asks first.
 */
export function InlineAction({
  fetcher,
  busy,
  hidden,
  name,
  placeholder,
  button,
  inputTestId,
  buttonTestId,
  tone = "danger",
  confirm,
  maxLength = 500,
}: {
  fetcher: ReturnType<typeof useAction>["fetcher"];
  busy: boolean;
  hidden: Record<string, string | number>;
  name: string;
  placeholder: string;
  button: string;
  inputTestId: string;
  buttonTestId: string;
  tone?: "danger" | "primary";
  confirm?: (value: string) => string;
  maxLength?: number;
}) {
  const { t } = useTranslation("admin");
  const ui = useUi();
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const value = String(data.get(name) ?? "").trim();
    if (!value) {
      ui.toast(name === "reason" ? t("need_reason") : t("need_value", { field: placeholder }));
      (form.elements.namedItem(name) as HTMLInputElement | null)?.focus();
      return;
    }
    if (confirm && !(await ui.confirm(confirm(value)))) return;
    fetcher.submit(data, { method: "post" });
  }
  return (
    <form className="inline-action" onSubmit={onSubmit} noValidate>
      {Object.entries(hidden).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <input name={name} placeholder={placeholder} aria-label={placeholder} maxLength={maxLength} data-testid={inputTestId} autoComplete="off" disabled={busy} />
      <button type="submit" className={tone === "danger" ? "btn btn-sm btn-danger" : "btn btn-sm btn-primary"} disabled={busy} data-testid={buttonTestId}>
        {button}
      </button>
    </form>
  );
}

/** A small status pill: review/pending amber, approved/paid green, rejected/cancelled grey-red. */
export function StatusPill({ status }: { status: string }) {
  const { t } = useTranslation("admin");
  return <span className={`pill pill-${status}`}>{t(`status.${status}`)}</span>;
}

/**
 * Wraps a wide table so it scrolls sideways on a tablet instead of squeezing. Focusable, so a
 * keyboard user can scroll it too.
 */
export function TableWrap({ children, fit = false }: { children: ReactNode; fit?: boolean }) {
  return (
    <div className={fit ? "table-wrap fit" : "table-wrap"} tabIndex={0}>
      {children}
    </div>
  );
}

/**
 * A destination as the API words it ("USDT · TRC20 · <address>", "<bank> · <name> · <card>"):
 * the label parts on one line, the part an operator copies or checks on its own line.
 */
export function Destination({ text, tag, showHead = true }: { text: string; tag?: string; showHead?: boolean }) {
  const parts = text.split(" · ");
  const last = parts.length > 1 ? parts[parts.length - 1] : text;
  const head = parts.length > 1 ? parts.slice(0, -1).join(" · ") : "";
  return (
    <div className="destination">
      {tag || (showHead && head) ? (
        <div>
          {tag ? <span className="tag">{tag}</span> : null}
          {showHead && head ? <span className="destination-head">{head}</span> : null}
        </div>
      ) : null}
      <code className="mono" title={text}>
        {last}
      </code>
    </div>
  );
}

/**
 * A review queue page (deposits, withdrawals): title and note, status tabs, the table of
 * rows, or "No data yet", and the pager. Columns come from the route; rows render themselves.
 */
export function QueuePage({
  title,
  note,
  statuses,
  data,
  tableTestId,
  columns,
  children,
}: {
  title: string;
  note: string;
  statuses: readonly string[];
  /** The route's loader data (`loadQueue`). */
  data: { items: unknown[]; total: number; status: string; page_no: number; error: string };
  tableTestId: string;
  columns: { label: string; num?: boolean }[];
  children: ReactNode;
}) {
  const { total, status, page_no, error } = data;
  const { t } = useTranslation("admin");
  // Tabs whose rows still wait for a decision (a first approval, a second operator, a profile review) show actions.
  const decided = status !== "review" && status !== "confirming" && status !== "submitted" && status !== "all";
  return (
    <section>
      <div className="page-head">
        <h1>{title}</h1>
        <span className="muted">{t("count_items", { count: total })}</span>
      </div>
      <p className="muted">{note}</p>
      <StatusTabs statuses={statuses} current={status} label={title} />
      {error ? <p className="notice notice-bad">{error}</p> : null}
      {data.items.length === 0 ? (
        <Empty />
      ) : (
        <TableWrap>
          <table className="table money-table" data-testid={tableTestId}>
            <thead>
              <tr>
                <th>{t("col.id_time")}</th>
                <th>{t("col.account")}</th>
                {columns.map((c) => (
                  <th key={c.label} className={c.num ? "num" : undefined}>
                    {c.label}
                  </th>
                ))}
                <th>{decided ? t("col.decision") : t("col.actions")}</th>
              </tr>
            </thead>
            <tbody>{children}</tbody>
          </table>
        </TableWrap>
      )}
      <Pager page={page_no} total={total} rows={QUEUE_ROWS} />
    </section>
  );
}

/** The first two cells of a queue row: number and time, and the user it belongs to. */
export function SubmitterCells({ id, created_at, user_id, account }: { id: number; created_at: number; user_id: number; account: string }) {
  const { i18n } = useTranslation("admin");
  return (
    <>
      <td>
        <strong>#{id}</strong>
        <div className="muted nowrap">{formatDateTime(created_at, i18n.language)}</div>
      </td>
      <td>
        <Link to={`/admin/users/${user_id}`}>{account || `#${user_id}`}</Link>
        <div className="muted">ID {user_id}</div>
      </td>
    </>
  );
}

/** A decided row's last cell: its state, when, and what was recorded with it. */
export function Decided({ status, decided_at, children }: { status: string; decided_at: number | null; children?: ReactNode }) {
  const { i18n } = useTranslation("admin");
  return (
    <div className="decided">
      <StatusPill status={status} />
      {decided_at ? <div className="muted nowrap">{formatDateTime(decided_at, i18n.language)}</div> : null}
      {children}
    </div>
  );
}
