import type { LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { AppLink, Empty, Screen } from "../../components/nav";
import { formatVolume } from "../../lib/trade-format";
import { ChangePill, LivePrice, SimulatedLabel } from "../../components/trade/quote-block";
import type { Product } from "../../lib/trade-types";
import { apiOrLogin } from "../../lib/api.server";
import { useQuotes, withLive } from "../../lib/quotes";
import { useRootData } from "../../root";
import tradeStyles from "../../styles/trade.css";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: tradeStyles }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const res = await apiOrLogin<Product[]>(context, request, "/api/index/product_list");
  return { products: res.code === 1 ? res.data : [], error: res.code === 1 ? "" : res.msg };
}

/** Tab 2, markets: every currency with its latest price and 24h rise/fall, live. */
export default function MarketsTab() {
  const { t } = useTranslation("trade");
  const { t: tc } = useTranslation();
  const { products, error } = useLoaderData<typeof loader>();
  const locale = useRootData()?.locale ?? "en";
  const live = useQuotes(products.map((p) => p.symbol));
  const rows = products.map((p) => withLive(p, live[p.symbol]));
  const simulated = rows.some((p) => p.simulated);
  return (
    <Screen title={tc("tabs.markets")} tabs>
      {simulated ? <SimulatedLabel /> : null}
      {error ? <p className="t-notice">{error}</p> : null}
      {rows.length === 0 ? (
        <section className="card">
          <Empty />
        </section>
      ) : (
        <section className="card t-market" aria-label={tc("tabs.markets")}>
          <div className="t-market-head" aria-hidden="true">
            <span>{t("col_pair")}</span>
            <span>{t("latest_price")}</span>
            <span>{t("change_24h")}</span>
          </div>
          <ul className="t-market-list">
            {rows.map((p) => (
              <li key={p.id}>
                <AppLink to={`/pages/invest/product?id=${p.id}`} className="t-market-row" data-testid="product-row" data-symbol={p.symbol} data-id={p.id}>
                  <span className="t-market-name">
                    <strong>{p.symbol}</strong>
                    <small>
                      {p.name}
                      {p.volume ? ` · ${t("vol_short", { volume: formatVolume(p.volume, locale) })}` : ""}
                    </small>
                  </span>
                  <LivePrice price={p.price} move={p.move} locale={locale} className="t-market-price" testId="row-price" />
                  <ChangePill change={p.change_pct} locale={locale} solid />
                </AppLink>
              </li>
            ))}
          </ul>
        </section>
      )}
    </Screen>
  );
}
