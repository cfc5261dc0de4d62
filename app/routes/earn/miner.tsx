import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useGuardedFetcher } from "../../lib/tap-guard";
import { useTranslation } from "react-i18next";
import type { MachineOut, MinerPlanOut } from "../../../worker/api/resources/earn";
import { formatUsdt, formatUsdtExact } from "../../../worker/domain/money/units";
import { LocalTime } from "../../components/money/local-time";
import { RecordList } from "../../components/money/record-list";
import { StatusBadge } from "../../components/money/status-badge";
import { Screen } from "../../components/nav";
import { useUi } from "../../components/ui";
import { api, apiOrLogin } from "../../lib/api.server";
import { loadPages, newRequestKey, PAGE_ROWS, pagesParam, type Paged } from "../../lib/money";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useRootData } from "../../root";
import earnStyles from "../../styles/earn.css";
import moneyStyles from "../../styles/money.css";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: moneyStyles },
  { rel: "stylesheet", href: earnStyles },
];

type Output = { machine_id: number; day: number; output: string; output_micro: number; credited_at: number };
type Outputs = Paged<Output> & { total_output_micro: number };

export async function loader({ request, context }: LoaderFunctionArgs) {
  // Machines first: opening them catches up the user's due outputs, so the list below is current.
  const machines = await apiOrLogin<MachineOut[]>(context, request, "/api/index/machines");
  const [plans, first] = await Promise.all([
    apiOrLogin<MinerPlanOut[]>(context, request, "/api/index/product", { type: "miner" }),
    apiOrLogin<Outputs>(context, request, "/api/index/kjlist", { page_no: 1, row: PAGE_ROWS }),
  ]);
  const failed = [machines, plans, first].find((r) => r.code !== 1);
  if (failed) throw new Response(failed.msg, { status: failed.status >= 400 ? failed.status : 500 });
  const results = await loadPages<Output>(
    pagesParam(new URL(request.url)),
    (page_no) => apiOrLogin<Outputs>(context, request, "/api/index/kjlist", { page_no, row: PAGE_ROWS }),
    (o) => `${o.machine_id}:${o.day}`,
  );
  return { plans: plans.data, machines: machines.data, results, total_output_micro: first.data.total_output_micro, request_key: newRequestKey() };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  return api(context, request, "/api/index/buy", { type: "miner", product_id: String(form.get("product_id") ?? ""), request_key: String(form.get("request_key") ?? "") });
}

/** The cloud miner: plans to buy, the user's machines, and every day's output, newest first. */
export default function Miner() {
  const { t } = useTranslation("wallet");
  const { plans, machines, results, total_output_micro } = useLoaderData<typeof loader>();
  const locale = useRootData()?.locale ?? "en";
  const running = machines.filter((m) => m.status === "running").length;
  return (
    <Screen title={t("earn.miner.title")} back>
      <section className="card e-totals" data-testid="miner-totals">
        <div>
          <span className="muted">{t("earn.miner.total_output")}</span>
          <strong data-testid="miner-total-output">{formatUsdtExact(total_output_micro, locale)} USDT</strong>
        </div>
        <div>
          <span className="muted">{t("earn.miner.running")}</span>
          <strong data-testid="miner-running">{running}</strong>
        </div>
      </section>
      <section className="card" aria-labelledby="miner-plans">
        <h2 className="card-title" id="miner-plans">{t("earn.miner.plans")}</h2>
        {plans.length === 0 ? <p className="muted" data-testid="miner-no-plans">{t("earn.miner.no_plans")}</p> : null}
        <ul className="m-list">
          {plans.map((p) => (
            <PlanRow key={p.id} p={p} />
          ))}
        </ul>
      </section>
      <section className="card" aria-labelledby="miner-machines">
        <h2 className="card-title" id="miner-machines">{t("earn.miner.machines")}</h2>
        {machines.length === 0 ? <p className="muted" data-testid="miner-no-machines">{t("earn.miner.no_machines")}</p> : null}
        <ul className="m-list">
          {machines.map((m) => (
            <li key={m.id} className="m-item" data-testid="miner-machine" data-id={m.id}>
              <div className="m-item-head">
                <p>{t("earn.miner.machine_no", { id: m.id })}</p>
                <StatusBadge status={m.status} tone={m.status === "running" ? "pending" : "neutral"} label={t(`earn.miner.status_${m.status}`)} />
              </div>
              <dl className="m-facts">
                <div>
                  <dt>{t("earn.miner.days")}</dt>
                  <dd data-testid="miner-machine-days">{`${m.days_paid} / ${m.days}`}</dd>
                </div>
                <div>
                  <dt>{t("earn.miner.output_so_far")}</dt>
                  <dd data-testid="miner-machine-output">{formatUsdtExact(m.output_micro, locale)} USDT</dd>
                </div>
                <div>
                  <dt>{t("earn.miner.ends")}</dt>
                  <dd>
                    <LocalTime ms={m.ends_at} locale={locale} />
                  </dd>
                </div>
              </dl>
            </li>
          ))}
        </ul>
      </section>
      <h2 className="card-title">{t("earn.miner.results")}</h2>
      <RecordList
        label={t("earn.miner.results")}
        items={results.items}
        error={results.error}
        pages={results.pages}
        total={results.total}
        renderItem={(o) => (
          <li key={`${o.machine_id}:${o.day}`} className="card m-item" data-testid="miner-output" data-machine={o.machine_id} data-day={o.day}>
            <div className="m-item-head">
              <p>{t("earn.miner.output_line", { id: o.machine_id, day: o.day })}</p>
              <strong>+{formatUsdtExact(o.output_micro, locale)} USDT</strong>
            </div>
            <p className="m-item-sub">
              <LocalTime ms={o.credited_at} locale={locale} />
            </p>
          </li>
        )}
      />
    </Screen>
  );
}

function PlanRow({ p }: { p: MinerPlanOut }) {
  const { t } = useTranslation("wallet");
  const locale = useRootData()?.locale ?? "en";
  const ui = useUi();
  const fetcher = useGuardedFetcher<PageEnvelope>();
  const { request_key } = useLoaderData<typeof loader>();
  useEnvelope(fetcher.data, (_d, msg) => ui.toast(msg));

  async function buy() {
    if (!(await ui.confirm(t("earn.miner.confirm", { name: p.name, price: formatUsdt(p.price_micro, locale) })))) return;
    // One key per plan and page view: a double tap buys one machine, a new visit may buy another.
    fetcher.submit({ product_id: String(p.id), request_key: `${request_key}-${p.id}` }, { method: "post" });
  }

  return (
    <li className="m-item" data-testid="miner-plan" data-id={p.id}>
      <div className="m-item-head">
        <div>
          <p>
            <strong>{p.name}</strong>
          </p>
          <p className="m-item-sub">{t("earn.miner.plan_terms", { price: formatUsdt(p.price_micro, locale), days: p.days, daily: formatUsdtExact(p.daily_output_micro, locale), total: formatUsdtExact(p.daily_output_micro * p.days, locale), stock: p.stock })}</p>
        </div>
        <button type="button" className="btn btn-primary" disabled={p.stock <= 0 || fetcher.state !== "idle"} onClick={buy} data-testid="miner-buy">
          {p.stock <= 0 ? t("earn.miner.sold_out") : t("earn.miner.buy")}
        </button>
      </div>
    </li>
  );
}
