import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData, useNavigate } from "@remix-run/react";
import { useGuardedFetcher } from "../../lib/tap-guard";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { serverNow } from "../../../worker/clock";
import { getDb } from "../../../worker/db/client";
import type { PoolProductOut } from "../../../worker/api/resources/earn";
import { poolQuote } from "../../../worker/domain/earn/pool-math";
import { formatUsdt, formatUsdtExact, parseAmount } from "../../../worker/domain/money/units";
import { AmountInput } from "../../components/money/amount-input";
import { useDateTime } from "../../components/money/local-time";
import { Notice } from "../../components/money/notice";
import { AppLink, Screen } from "../../components/nav";
import { useUi } from "../../components/ui";
import { api, apiOrLogin } from "../../lib/api.server";
import { newRequestKey } from "../../lib/money";
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

export async function loader({ request, context }: LoaderFunctionArgs) {
  const products = await apiOrLogin<PoolProductOut[]>(context, request, "/api/index/product", { type: "pool" });
  if (products.code !== 1) throw new Response(products.msg, { status: products.status >= 400 ? products.status : 500 });
  // The server's earn clock, so the maturity shown is the one the server will use.
  const offset_ms = (await serverNow(context.env, getDb(context.env.DB))) - Date.now();
  return { products: products.data, offset_ms, request_key: newRequestKey() };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const field = (n: string) => String(form.get(n) ?? "");
  return api(context, request, "/api/index/buy", { type: "pool", product_id: field("product_id"), amount: field("amount"), request_key: field("request_key") });
}

/** The loan service (liquidity pool): pick a product, type an amount, see what it pays, confirm. */
export default function Loan() {
  const { t } = useTranslation("wallet");
  const { products, offset_ms, request_key } = useLoaderData<typeof loader>();
  const locale = useRootData()?.locale ?? "en";
  const ui = useUi();
  const navigate = useNavigate();
  const fetcher = useGuardedFetcher<PageEnvelope<{ id: number }>>();
  const [productId, setProductId] = useState(products[0]?.id ?? 0);
  const [amount, setAmount] = useState("");
  const product = products.find((p) => p.id === productId) ?? products[0];
  const answer = fetcher.data as (PageEnvelope<{ error?: string }> & { data?: { error?: string } }) | undefined;
  const gated = answer?.code === 0 && (answer.data?.error === "profile_incomplete" || answer.data?.error === "profile_rejected");
  useEnvelope(fetcher.data, (_d, msg) => {
    ui.toast(msg);
    navigate("/pages/me/sub/loan-records");
  });

  const parsed = amount === "" ? null : parseAmount(amount);
  const amount_micro = parsed?.status === "ok" ? parsed.amount_micro : null;
  const inRange = product && amount_micro !== null && amount_micro >= product.min_amount_micro && amount_micro <= product.max_amount_micro;

  async function buy() {
    if (!product || !inRange) return;
    if (!(await ui.confirm(t("earn.loan.confirm", { amount: formatUsdt(amount_micro!, locale), name: product.name, days: product.days })))) return;
    fetcher.submit({ product_id: String(product.id), amount, request_key }, { method: "post" });
  }

  return (
    <Screen title={t("earn.loan.title")} back right={<AppLink to="/pages/me/sub/loan-records" className="m-navbar-action" data-testid="loan-records-link">{t("records")}</AppLink>}>
      {gated ? (
        <Notice tone="warn" testId="loan-profile-gate">
          <p>{answer?.msg}</p>
          <AppLink to="/pages/me/sub/improve-info" className="btn btn-primary" data-testid="loan-improve-info">
            {t("earn.loan.complete_profile")}
          </AppLink>
        </Notice>
      ) : null}
      {products.length === 0 ? (
        <Notice testId="loan-no-products">
          <p>{t("earn.loan.no_products")}</p>
        </Notice>
      ) : (
        <section className="card" aria-labelledby="loan-products">
          <h2 className="card-title" id="loan-products">{t("earn.loan.products")}</h2>
          <div className="m-targets" role="radiogroup" aria-labelledby="loan-products">
            {products.map((p) => (
              <label key={p.id} className="m-target" data-testid="loan-product" data-id={p.id}>
                <input type="radio" name="product" checked={p.id === product?.id} onChange={() => setProductId(p.id)} />
                <span>
                  <strong>{p.name}</strong>
                  <span className="m-item-sub">{t("earn.loan.product_terms", { days: p.days, rate: p.daily_rate, min: p.min_amount, max: p.max_amount, penalty: p.penalty_rate })}</span>
                </span>
              </label>
            ))}
          </div>
        </section>
      )}
      {product ? (
        <section className="card">
          <AmountInput label={t("earn.loan.amount")} value={amount} onChange={setAmount} placeholder={t("earn.loan.amount_range", { min: product.min_amount, max: product.max_amount })} testId="loan-amount" />
          {amount_micro !== null && !inRange ? <p className="m-explain m-explain-bad" data-testid="loan-amount-problem">{t("earn.loan.amount_range", { min: product.min_amount, max: product.max_amount })}</p> : null}
          {inRange ? <Calculator product={product} amount_micro={amount_micro!} offset_ms={offset_ms} /> : null}
          <button type="button" className="btn btn-primary btn-block" disabled={!inRange || fetcher.state !== "idle"} onClick={buy} data-testid="loan-buy">
            {t("earn.loan.buy")}
          </button>
        </section>
      ) : null}
    </Screen>
  );
}

/** What the amount pays, with the server's own arithmetic (worker/domain/earn/pool-math.ts). */
function Calculator({ product, amount_micro, offset_ms }: { product: PoolProductOut; amount_micro: number; offset_ms: number }) {
  const { t } = useTranslation("wallet");
  const locale = useRootData()?.locale ?? "en";
  const dateTime = useDateTime(locale);
  const q = poolQuote({ amount_micro, days: product.days, daily_rate_bp: product.daily_rate_bp, penalty_rate_bp: product.penalty_rate_bp }, Date.now() + offset_ms);
  const usdt = (m: number) => `${formatUsdtExact(m, locale)} USDT`;
  return (
    <div data-testid="loan-calculator">
      <dl className="m-facts">
        <div>
          <dt>{t("earn.loan.reward_per_day")}</dt>
          <dd data-testid="loan-reward-per-day">{usdt(q.reward_per_day_micro)}</dd>
        </div>
        <div>
          <dt>{t("earn.loan.total_reward")}</dt>
          <dd data-testid="loan-total-reward">{usdt(q.total_reward_micro)}</dd>
        </div>
        <div>
          <dt>{t("earn.loan.maturity")}</dt>
          <dd data-testid="loan-maturity">{dateTime(q.maturity_at_ms)}</dd>
        </div>
      </dl>
      <p className="muted">{t("earn.loan.table_explain", { penalty: product.penalty_rate })}</p>
      <table className="e-table" data-testid="loan-redeem-table">
        <thead>
          <tr>
            <th>{t("earn.loan.col_day")}</th>
            <th>{t("earn.loan.col_penalty")}</th>
            <th>{t("earn.loan.col_returned")}</th>
            <th>{t("earn.loan.col_total")}</th>
          </tr>
        </thead>
        <tbody>
          {q.table.map((r) => (
            <tr key={r.completed_days} data-testid="loan-redeem-row">
              <td>{t("earn.loan.day_n", { n: r.completed_days + 1 })}</td>
              <td>{usdt(r.penalty_micro)}</td>
              <td>{usdt(r.returned_micro)}</td>
              <td>{usdt(r.total_micro)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
