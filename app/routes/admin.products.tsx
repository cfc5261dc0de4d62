import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher, useLoaderData } from "@remix-run/react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Field } from "../components/form";
import { useUi } from "../components/ui";
import { adminApi, adminApiOrLogin } from "../lib/admin.server";
import { useEnvelope, type PageEnvelope } from "../lib/use-envelope";
export { clientAction } from "../lib/client-action";
export { shouldRevalidate } from "../lib/revalidate";

type DurationRow = { seconds: number; profit_rate_bp: number; min_amount: string; max_amount: string };
type ProductRow = {
  id: number;
  symbol: string;
  name: string;
  feed_symbol: string;
  start_price: string;
  tick_size: string;
  fee_rate_bp: number;
  quote_tolerance_bp: number;
  trading_hours: string;
  enabled: boolean;
  sort: number;
  durations: DurationRow[];
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  return { products: (await adminApiOrLogin<ProductRow[]>(context, request, "/api/admin/products")).data };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = Object.fromEntries(await request.formData()) as Record<string, string>;
  return adminApi(context, request, "/api/admin/products/save", form);
}

const EMPTY: ProductRow = {
  id: 0,
  symbol: "",
  name: "",
  feed_symbol: "",
  start_price: "",
  tick_size: "0.01",
  fee_rate_bp: 100,
  quote_tolerance_bp: 50,
  trading_hours: "",
  enabled: true,
  sort: 0,
  durations: [{ seconds: 30, profit_rate_bp: 8500, min_amount: "10.00", max_amount: "10000.00" }],
};

/**
 * Markets: symbols, delivery durations with their profit rates and stake limits, fee rate,
 * price tolerance, trading hours. There is deliberately nothing here about outcomes: they come
 * from the price feed alone.
 */
export default function AdminProducts() {
  const { t } = useTranslation("admin");
  const { products } = useLoaderData<typeof loader>();
  return (
    <section>
      <h1>{t("products.title")}</h1>
      <p className="muted">{t("products.note")}</p>
      {[...products, EMPTY].map((p) => (
        <ProductForm key={p.id || "new"} product={p} />
      ))}
    </section>
  );
}

function ProductForm({ product }: { product: ProductRow }) {
  const { t } = useTranslation("admin");
  const ui = useUi();
  const fetcher = useFetcher<PageEnvelope>();
  const [durations, setDurations] = useState<DurationRow[]>(product.durations);
  useEnvelope(fetcher.data, (_d, msg) => ui.toast(msg));
  const set = (i: number, patch: Partial<DurationRow>) => setDurations((ds) => ds.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  return (
    <fetcher.Form method="post" className="card form admin-form" data-testid="product-form">
      <h3 className="card-title">{product.id ? `${product.symbol} · ${product.name}` : t("products.add")}</h3>
      <input type="hidden" name="durations" value={JSON.stringify(durations)} />
      <div className="admin-grid">
        <Field label={t("products.symbol")} name="symbol" defaultValue={product.symbol} placeholder="BTC/USDT" />
        <Field label={t("products.name")} name="name" defaultValue={product.name} />
        <Field label={t("products.feed_symbol")} name="feed_symbol" defaultValue={product.feed_symbol} placeholder="BTCUSDT" />
        <Field label={t("products.start_price")} name="start_price" defaultValue={product.start_price} hint={t("products.start_price_hint")} />
        <Field label={t("products.tick_size")} name="tick_size" defaultValue={product.tick_size} />
        <Field label={t("products.fee_rate_bp")} name="fee_rate_bp" type="number" defaultValue={product.fee_rate_bp} hint={t("products.bp_hint")} />
        <Field label={t("products.tolerance_bp")} name="quote_tolerance_bp" type="number" defaultValue={product.quote_tolerance_bp} hint={t("products.tolerance_hint")} />
        <Field label={t("products.trading_hours")} name="trading_hours" defaultValue={product.trading_hours} placeholder="00:00-24:00" hint={t("products.trading_hours_hint")} />
        <Field label={t("products.sort")} name="sort" type="number" defaultValue={product.sort} />
      </div>
      <label className="check">
        <input type="checkbox" name="enabled" value="1" defaultChecked={product.enabled} /> {t("products.enabled")}
      </label>
      <table className="table">
        <thead>
          <tr>
            <th>{t("products.seconds")}</th>
            <th>{t("products.profit_rate_bp")}</th>
            <th>{t("products.min_amount")}</th>
            <th>{t("products.max_amount")}</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {durations.map((d, i) => (
            <tr key={i}>
              <td>
                <input type="number" value={d.seconds} onChange={(e) => set(i, { seconds: Number(e.target.value) })} aria-label={t("products.seconds")} />
              </td>
              <td>
                <input type="number" value={d.profit_rate_bp} onChange={(e) => set(i, { profit_rate_bp: Number(e.target.value) })} aria-label={t("products.profit_rate_bp")} /> = {(d.profit_rate_bp / 100).toFixed(2)}%
              </td>
              <td>
                <input value={d.min_amount} onChange={(e) => set(i, { min_amount: e.target.value })} aria-label={t("products.min_amount")} />
              </td>
              <td>
                <input value={d.max_amount} onChange={(e) => set(i, { max_amount: e.target.value })} aria-label={t("products.max_amount")} />
              </td>
              <td>
                <button type="button" className="btn btn-plain" onClick={() => setDurations((ds) => ds.filter((_, j) => j !== i))} disabled={durations.length === 1}>
                  {t("products.remove")}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" className="btn btn-plain" onClick={() => setDurations((ds) => [...ds, { seconds: 60, profit_rate_bp: 8500, min_amount: "10.00", max_amount: "10000.00" }])}>
        {t("products.add_duration")}
      </button>
      <Field label={t("reason")} name="reason" required />
      <button type="submit" className="btn btn-primary" disabled={fetcher.state !== "idle"}>
        {t("save")}
      </button>
    </fetcher.Form>
  );
}
