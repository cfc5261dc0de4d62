import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useNavigate } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Screen } from "../../components/nav";
import { CandleChart, IntervalTabs } from "../../components/trade/candle-chart";
import { priceDecimals } from "../../lib/trade-format";
import { orderAction } from "../../lib/order-action.server";
import { BuyButtons, OrderSheet } from "../../components/trade/order-sheet";
import { readInterval, writeIndex, writeInterval } from "../../lib/trade-prefs";
import { QuoteBlock, SimulatedLabel } from "../../components/trade/quote-block";
import type { Direction, Interval, Product } from "../../lib/trade-types";
import { apiOrLogin } from "../../lib/api.server";
import { useQuotes, withLive } from "../../lib/quotes";
import { LiveStatus } from "../../components/trade/live-status";
import { useRootData } from "../../root";
import tradeStyles from "../../styles/trade.css";
import { formatRate } from "../../../worker/domain/money/units";
export { shouldRevalidate } from "../../lib/revalidate";
export { clientAction } from "../../lib/client-action";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: tradeStyles }];

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data ? `${data.product.symbol} · Proofline` : "Proofline" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const id = new URL(request.url).searchParams.get("id") ?? "";
  if (!/^\d{1,12}$/.test(id)) throw new Response("Not found", { status: 404 });
  const res = await apiOrLogin<Product>(context, request, "/api/index/product", { id });
  if (res.code !== 1) throw new Response(res.msg, { status: 404 });
  return { product: res.data };
}

export const action = (args: ActionFunctionArgs) => orderAction(args);

/** A market: quote block, candles (1m/5m/15m/1h), live, and Buy up / Buy down. */
export default function ProductPage() {
  const { t } = useTranslation("trade");
  const { product } = useLoaderData<typeof loader>();
  const root = useRootData();
  const locale = root?.locale ?? "en";
  const navigate = useNavigate();
  const live = useQuotes([product.symbol])[product.symbol];
  const quote = withLive(product, live);
  const [interval, setChartInterval] = useState<Interval>("1m");
  const [sheet, setSheet] = useState<Direction | null>(null);
  useEffect(() => setChartInterval(readInterval()), []);
  const close = useCallback(() => setSheet(null), []);
  const decimals = priceDecimals(product.price, product.open, product.high, product.low);

  return (
    <Screen title={product.symbol} back>
      {quote.simulated ? <SimulatedLabel /> : null}
      <QuoteBlock quote={quote} locale={locale} />
      <LiveStatus symbol={product.symbol} />

      <section className="card t-chart-card">
        <IntervalTabs
          value={interval}
          onChange={(v) => {
            setChartInterval(v);
            writeInterval(v);
          }}
        />
        <CandleChart productId={product.id} symbol={product.symbol} interval={interval} locale={locale} decimals={decimals} />
      </section>

      <section className="card t-rules" aria-labelledby="t-rules-title">
        <h2 id="t-rules-title" className="card-title">
          {t("rules_title")}
        </h2>
        <dl className="t-rules-list">
          <div>
            <dt>{t("deliveries")}</dt>
            <dd>
              {product.durations.map((d) => (
                <span key={d.seconds} className="t-rules-chip">
                  {t("seconds", { count: d.seconds })} · {formatRate(d.profit_rate_bp, locale)}
                </span>
              ))}
            </dd>
          </div>
          <div>
            <dt>{t("fee_rate")}</dt>
            <dd>{formatRate(product.fee_rate_bp, locale)}</dd>
          </div>
          <div>
            <dt>{t("trading_hours")}</dt>
            <dd>{product.trading_hours ? t("hours_utc", { hours: product.trading_hours }) : t("always_open")}</dd>
          </div>
        </dl>
        <p className="t-rule">{t("rule")}</p>
      </section>

      <div className="t-buy-bar">
        <BuyButtons onBuy={setSheet} disabled={product.durations.length === 0} />
      </div>

      {sheet ? (
        <OrderSheet
          product={product}
          direction={sheet}
          locale={locale}
          balance_micro={root?.user?.balance_micro ?? 0}
          onClose={close}
          onPlaced={() => {
            setSheet(null);
            writeIndex("orderTabIndexActive", 0);
            navigate(`/pages/money/index?product=${product.id}`);
          }}
        />
      ) : null}
    </Screen>
  );
}
