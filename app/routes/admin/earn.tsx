import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useRef } from "react";
import { useTranslation } from "react-i18next";
import { Field } from "../../components/form";
import { useConsoleFetcher } from "../../components/admin/step-up";
import { useUi } from "../../components/ui";
import { adminApi, adminApiOrLogin } from "../../lib/admin.server";
import { useEnvelope } from "../../lib/use-envelope";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

type PoolRow = { id: number; name: string; days: number; daily_rate: string; min_amount: string; max_amount: string; penalty_rate: string; enabled: boolean; sort: number; running: number };
type MinerRow = { id: number; name: string; price: string; days: number; daily_output: string; stock: number; enabled: boolean; sort: number; running: number };
type Kind = "pool" | "miner";

const EMPTY_POOL: PoolRow = { id: 0, name: "", days: 7, daily_rate: "", min_amount: "", max_amount: "", penalty_rate: "", enabled: true, sort: 0, running: 0 };
const EMPTY_MINER: MinerRow = { id: 0, name: "", price: "", days: 30, daily_output: "", stock: 0, enabled: true, sort: 0, running: 0 };

export async function loader({ request, context }: LoaderFunctionArgs) {
  return (await adminApiOrLogin<{ pool: PoolRow[]; miner: MinerRow[] }>(context, request, "/api/admin/earn")).data;
}

/** One action for both kinds: `intent` says whether the form saves terms or opens/closes. */
export async function action({ request, context }: ActionFunctionArgs) {
  const { intent, kind, id, ...form } = Object.fromEntries(await request.formData()) as Record<string, string>;
  const base = kind === "miner" ? "/api/admin/earn/miner" : "/api/admin/earn/pool";
  if (intent === "toggle") return adminApi(context, request, `${base}/${encodeURIComponent(id ?? "")}/enabled`, form);
  return adminApi(context, request, `${base}/save`, { ...form, id: id ?? "" });
}

/**
 * Earn products: liquidity-pool products and cloud-miner plans. A product's terms are copied
 * onto each order at purchase; while anything bought under it runs they are read-only here
 * (and refused by the server), so the operator closes it and creates a new one instead.
 */
export default function AdminEarn() {
  const { t } = useTranslation("admin");
  const { pool, miner } = useLoaderData<typeof loader>();
  return (
    <section data-testid="earn-page">
      <h1>{t("earn.title")}</h1>
      <p className="muted">{t("earn.note")}</p>
      <h2>{t("earn.pool_title")}</h2>
      {[...pool, EMPTY_POOL].map((p) => (
        <div key={p.id || "new"} className="card" data-testid={p.id ? "earn-pool-product" : "earn-pool-new"} data-id={p.id || undefined}>
          <PoolForm row={p} />
          {p.id ? <Toggle kind="pool" id={p.id} enabled={p.enabled} /> : null}
        </div>
      ))}
      <h2>{t("earn.miner_title")}</h2>
      {[...miner, EMPTY_MINER].map((m) => (
        <div key={m.id || "new"} className="card" data-testid={m.id ? "earn-miner-plan" : "earn-miner-new"} data-id={m.id || undefined}>
          <MinerForm row={m} />
          {m.id ? <Toggle kind="miner" id={m.id} enabled={m.enabled} /> : null}
        </div>
      ))}
    </section>
  );
}

/** Saves through the route's action; on success a form for a new row empties for the next one. */
function useSaveFetcher(resetOnSuccess = false) {
  const ui = useUi();
  const fetcher = useConsoleFetcher();
  const form = useRef<HTMLFormElement>(null);
  useEnvelope(fetcher.data, (_d, msg) => {
    ui.toast(msg);
    if (resetOnSuccess) form.current?.reset();
  });
  return { fetcher, form };
}

function Title({ row, add }: { row: { id: number; name: string; enabled: boolean }; add: string }) {
  const { t } = useTranslation("admin");
  if (!row.id) return <h3 className="card-title">{add}</h3>;
  return (
    <h3 className="card-title">
      #{row.id} · {row.name}{" "}
      <span className={`pill pill-${row.enabled ? "approved" : "cancelled"}`} data-testid="earn-state">
        {row.enabled ? t("earn.open") : t("earn.closed")}
      </span>
    </h3>
  );
}

function PoolForm({ row }: { row: PoolRow }) {
  const { t } = useTranslation("admin");
  const { fetcher, form } = useSaveFetcher(!row.id);
  const locked = row.running > 0;
  return (
    <fetcher.Form ref={form} method="post" className="form admin-form" data-testid="earn-pool-form">
      <Title row={row} add={t("earn.pool_add")} />
      <input type="hidden" name="kind" value="pool" />
      <input type="hidden" name="id" value={row.id || ""} />
      <div className="admin-grid">
        <Field label={t("earn.name")} name="name" defaultValue={row.name} required maxLength={60} />
        <Field label={t("earn.days")} name="days" type="number" min={1} max={3650} defaultValue={row.days} readOnly={locked} />
        <Field label={t("earn.daily_rate")} name="daily_rate" defaultValue={row.daily_rate} inputMode="decimal" placeholder="0.68" readOnly={locked} />
        <Field label={t("earn.min_amount")} name="min_amount" defaultValue={row.min_amount} inputMode="decimal" readOnly={locked} />
        <Field label={t("earn.max_amount")} name="max_amount" defaultValue={row.max_amount} inputMode="decimal" readOnly={locked} />
        <Field label={t("earn.penalty_rate")} name="penalty_rate" defaultValue={row.penalty_rate} inputMode="decimal" placeholder="1" readOnly={locked} />
        <Field label={t("earn.sort")} name="sort" type="number" min={0} max={1000} defaultValue={row.sort} />
      </div>
      {locked ? (
        <p className="muted" data-testid="earn-terms-locked">
          {t("earn.pool_locked", { count: row.running })}
        </p>
      ) : null}
      <SaveTail enabled={row.enabled} busy={fetcher.state !== "idle"} />
    </fetcher.Form>
  );
}

function MinerForm({ row }: { row: MinerRow }) {
  const { t } = useTranslation("admin");
  const { fetcher, form } = useSaveFetcher(!row.id);
  const locked = row.running > 0;
  return (
    <fetcher.Form ref={form} method="post" className="form admin-form" data-testid="earn-miner-form">
      <Title row={row} add={t("earn.miner_add")} />
      <input type="hidden" name="kind" value="miner" />
      <input type="hidden" name="id" value={row.id || ""} />
      <div className="admin-grid">
        <Field label={t("earn.name")} name="name" defaultValue={row.name} required maxLength={60} />
        <Field label={t("earn.price")} name="price" defaultValue={row.price} inputMode="decimal" readOnly={locked} />
        <Field label={t("earn.days")} name="days" type="number" min={1} max={3650} defaultValue={row.days} readOnly={locked} />
        <Field label={t("earn.daily_output")} name="daily_output" defaultValue={row.daily_output} inputMode="decimal" readOnly={locked} />
        <Field label={t("earn.stock")} name="stock" type="number" min={0} defaultValue={row.stock} />
        <Field label={t("earn.sort")} name="sort" type="number" min={0} max={1000} defaultValue={row.sort} />
      </div>
      {locked ? (
        <p className="muted" data-testid="earn-terms-locked">
          {t("earn.miner_locked", { count: row.running })}
        </p>
      ) : null}
      <SaveTail enabled={row.enabled} busy={fetcher.state !== "idle"} />
    </fetcher.Form>
  );
}

function SaveTail({ enabled, busy }: { enabled: boolean; busy: boolean }) {
  const { t } = useTranslation("admin");
  return (
    <>
      <label className="check">
        <input type="checkbox" name="enabled" value="1" defaultChecked={enabled} /> {t("earn.enabled")}
      </label>
      <Field label={t("reason")} name="reason" required maxLength={500} data-testid="earn-reason" />
      <button type="submit" className="btn btn-primary" disabled={busy} data-testid="earn-save">
        {t("save")}
      </button>
    </>
  );
}

/** Closing stops new purchases and keeps every term; what runs keeps running. */
function Toggle({ kind, id, enabled }: { kind: Kind; id: number; enabled: boolean }) {
  const { t } = useTranslation("admin");
  const { fetcher, form } = useSaveFetcher(true);
  return (
    <fetcher.Form ref={form} method="post" className="inline-action" data-testid="earn-toggle">
      <input type="hidden" name="intent" value="toggle" />
      <input type="hidden" name="kind" value={kind} />
      <input type="hidden" name="id" value={id} />
      <input type="hidden" name="enabled" value={enabled ? "0" : "1"} />
      <input name="reason" required maxLength={500} placeholder={t("reason")} aria-label={t("reason")} data-testid="earn-toggle-reason" />
      <button type="submit" className={enabled ? "btn btn-danger" : "btn btn-plain"} disabled={fetcher.state !== "idle"} data-testid="earn-toggle-submit">
        {enabled ? t("earn.close") : t("earn.reopen")}
      </button>
    </fetcher.Form>
  );
}
