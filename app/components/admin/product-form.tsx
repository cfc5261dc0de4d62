import { TableWrap } from "./money";
import { Link } from "@remix-run/react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Field } from "../form";
import { useConsoleFetcher } from "./step-up";
import { useUi } from "../ui";
import { useEnvelope } from "../../lib/use-envelope";
import { formatBp } from "../../../worker/domain/money/units";

export type DurationRow = { seconds: number; profit_rate_bp: number; min_amount: string; max_amount: string };
export type ProductRow = {
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
  exposure_limit: string;
  /** While orders are open, the feed, price step and start price are locked. */
  open_orders: number;
  durations: DurationRow[];
};

export const EMPTY_PRODUCT: ProductRow = {
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
  exposure_limit: "100000.00",
  open_orders: 0,
  durations: [{ seconds: 30, profit_rate_bp: 8500, min_amount: "10.00", max_amount: "10000.00" }],
};

/**
 * One market's settings, saved to `/api/admin/products/save` through the route's action. While
 * the market has open orders, the fields their settlement depends on are read-only and the
 * form says why (the server refuses such a change in any case).
 */
export function ProductForm({ product, action }: { product: ProductRow; action?: string }) {
  const { t, i18n } = useTranslation("admin");
  const ui = useUi();
  const fetcher = useConsoleFetcher();
  const [durations, setDurations] = useState<DurationRow[]>(product.durations);
  useEnvelope(fetcher.data, (_d, msg) => ui.toast(msg));
  const locked = product.open_orders > 0;
  const set = (i: number, patch: Partial<DurationRow>) => setDurations((ds) => ds.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  return (
    <fetcher.Form method="post" action={action} className="card form admin-form" data-testid="product-form">
      <h3 className="card-title">
        {product.id ? `${product.symbol} · ${product.name}` : t("products.add")}
        {product.id ? (
          <>
            {" · "}
            <Link to={`/admin/products/${product.id}`}>{t("products.risk_link")}</Link>
          </>
        ) : null}
      </h3>
      <input type="hidden" name="durations" value={JSON.stringify(durations)} />
      <div className="admin-grid">
        <Field label={t("products.symbol")} name="symbol" defaultValue={product.symbol} placeholder="BTC/USDT" />
        <Field label={t("products.name")} name="name" defaultValue={product.name} />
        <Field label={t("products.feed_symbol")} name="feed_symbol" defaultValue={product.feed_symbol} placeholder="BTCUSDT" readOnly={locked} />
        <Field label={t("products.start_price")} name="start_price" defaultValue={product.start_price} hint={t("products.start_price_hint")} readOnly={locked} />
        <Field label={t("products.tick_size")} name="tick_size" defaultValue={product.tick_size} readOnly={locked} />
        <Field label={t("products.fee_rate_bp")} name="fee_rate_bp" type="number" defaultValue={product.fee_rate_bp} hint={t("products.bp_hint")} />
        <Field label={t("products.tolerance_bp")} name="quote_tolerance_bp" type="number" defaultValue={product.quote_tolerance_bp} hint={t("products.tolerance_hint")} />
        <Field label={t("products.trading_hours")} name="trading_hours" defaultValue={product.trading_hours} placeholder="00:00-24:00" hint={t("products.trading_hours_hint")} />
        <Field label={t("products.sort")} name="sort" type="number" defaultValue={product.sort} />
        <Field label={t("products.exposure_limit")} name="exposure_limit" defaultValue={product.exposure_limit} hint={t("products.exposure_limit_hint")} inputMode="decimal" />
      </div>
      {locked ? (
        <p className="muted" data-testid="product-locked">
          {t("products.locked", { count: product.open_orders })}
        </p>
      ) : null}
      <label className="check">
        <input type="checkbox" name="enabled" value="1" defaultChecked={product.enabled} /> {t("products.enabled")}
      </label>
      <TableWrap fit>
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
                  <input type="number" value={d.profit_rate_bp} onChange={(e) => set(i, { profit_rate_bp: Number(e.target.value) })} aria-label={t("products.profit_rate_bp")} /> = {formatBp(d.profit_rate_bp, i18n.language, { percent: true })}
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
      </TableWrap>
      <button type="button" className="btn btn-plain" onClick={() => setDurations((ds) => [...ds, { seconds: 60, profit_rate_bp: 8500, min_amount: "10.00", max_amount: "10000.00" }])}>
        {t("products.add_duration")}
      </button>
      <p className="muted" data-testid="terms-hint">
        {t("products.terms_hint")}
      </p>
      <Field label={t("reason")} name="reason" required />
      <button type="submit" className="btn btn-primary" disabled={fetcher.state !== "idle"}>
        {t("save")}
      </button>
    </fetcher.Form>
  );
}
