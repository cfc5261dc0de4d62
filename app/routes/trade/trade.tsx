import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData, useLocation, useNavigate, type ShouldRevalidateFunction } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { LoadMore } from "../../components/money/load-more";
import { Empty, Screen } from "../../components/nav";
import { CandleChart, IntervalTabs } from "../../components/trade/candle-chart";
import { priceDecimals } from "../../lib/trade-format";
import { orderAction } from "../../lib/order-action.server";
import { HistoryList, PositionList } from "../../components/trade/order-lists";
import { BuyButtons, OrderSheet } from "../../components/trade/order-sheet";
import { readIndex, readInterval, writeIndex, writeInterval } from "../../lib/trade-prefs";
import { ChangePill, LivePrice, QuoteBlock, SimulatedLabel } from "../../components/trade/quote-block";
import type { Direction, Interval, Order, OrderPage, Product } from "../../lib/trade-types";
import { apiOrLogin } from "../../lib/api.server";
import { loadPages, pagesParam, PAGE_ROWS } from "../../lib/money";
import { useQuotes, withLive, type LiveQuote } from "../../lib/quotes";
import { shouldRevalidate as revalidateAfterActions } from "../../lib/revalidate";
import { useRootData } from "../../root";
import { CsvDownload } from "../../components/money/csv-download";
import tradeStyles from "../../styles/trade.css";
export { clientAction } from "../../lib/client-action";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: tradeStyles }];

/** Open orders shown at once (the API's page maximum); they settle within minutes. */
const HOLD_ROWS = 100;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const pages = pagesParam(new URL(request.url));
  const [list, hold, history] = await Promise.all([
    apiOrLogin<Product[]>(context, request, "/api/index/product_list"),
    apiOrLogin<OrderPage>(context, request, "/api/order/hold", { page_no: 1, row: HOLD_ROWS }),
    loadPages<Order>(pages, (page_no) => apiOrLogin(context, request, "/api/order/orderlist", { page_no, row: PAGE_ROWS }), (o) => String(o.id)),
  ]);
  return {
    products: list.code === 1 ? list.data : [],
    hold: hold.code === 1 ? hold.data : { items: [], total: 0, server_time: Date.now() },
    history,
    error: [list, hold].find((r) => r.code !== 1)?.msg ?? history.error,
  };
}

export const action = (args: ActionFunctionArgs) => orderAction(args);

/**
 * The shared rule (no reload after a 401 or a network failure), plus: dropping the one-off
 * `?product=` hand-over from the product page does not reload the lists.
 */
export const shouldRevalidate: ShouldRevalidateFunction = (args) => {
  const { currentUrl, nextUrl, formMethod } = args;
  if (!formMethod && currentUrl.pathname === nextUrl.pathname && currentUrl.search !== nextUrl.search) {
    const a = new URLSearchParams(currentUrl.search);
    const b = new URLSearchParams(nextUrl.search);
    a.delete("product");
    b.delete("product");
    if (a.toString() === b.toString()) return false;
  }
  return revalidateAfterActions(args);
};

/**
 * Tab 1, trade: the selected market (switcher; `productIndex` and the chart interval
 * `productType` persist in localStorage), its chart and buy buttons, then Positions and
 * History (`orderTabIndexActive`).
 */
export default function TradeTab() {
  const { t } = useTranslation("trade");
  const { t: tc } = useTranslation();
  const { products, hold, history, error } = useLoaderData<typeof loader>();
  const root = useRootData();
  const locale = root?.locale ?? "en";
  const location = useLocation();
  const navigate = useNavigate();
  const handedOver = new URLSearchParams(location.search).get("product");
  const handedIndex = handedOver ? products.findIndex((p) => String(p.id) === handedOver) : -1;

  // Until mounted the stored choices are unknown: the product area waits rather than flash
  // another market; the lists start on Positions.
  const [index, setIndex] = useState<number | null>(handedIndex >= 0 ? handedIndex : null);
  const [interval, setChartInterval] = useState<Interval>("1m");
  const [tab, setTab] = useState(0);
  const [sheet, setSheet] = useState<Direction | null>(null);

  useEffect(() => {
    setChartInterval(readInterval());
    if (handedIndex >= 0) {
      writeIndex("productIndex", handedIndex);
      writeIndex("orderTabIndexActive", 0);
      setIndex(handedIndex);
      setTab(0);
      const rest = new URLSearchParams(location.search);
      rest.delete("product");
      navigate(`${location.pathname}${rest.toString() ? `?${rest}` : ""}`, { replace: true, preventScrollReset: true });
    } else {
      setIndex(readIndex("productIndex", products.length));
      setTab(readIndex("orderTabIndexActive", 2));
    }
    // Only on arrival: later choices are the user's.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [handedOver]);

  const live = useQuotes(products.map((p) => p.symbol));
  const selected = index !== null && index < products.length ? products[index] : null;
  const quote = selected ? withLive(selected, live[selected.symbol]) : null;
  const simulated = products.some((p) => withLive(p, live[p.symbol]).simulated);
  const close = useCallback(() => setSheet(null), []);

  const chooseTab = (n: number) => {
    setTab(n);
    writeIndex("orderTabIndexActive", n);
  };

  return (
    <Screen title={tc("tabs.trade")} tabs>
      {simulated ? <SimulatedLabel /> : null}
      {error ? <p className="t-notice">{error}</p> : null}

      {products.length === 0 ? (
        <section className="card">
          <Empty />
        </section>
      ) : (
        <>
          <ProductSwitcher
            products={products}
            live={live}
            selected={index}
            locale={locale}
            onSelect={(i) => {
              setIndex(i);
              writeIndex("productIndex", i);
            }}
          />
          {selected && quote ? (
            <section className="card t-trade" aria-label={selected.symbol}>
              <QuoteBlock quote={quote} locale={locale} compact />
              <IntervalTabs
                value={interval}
                onChange={(v) => {
                  setChartInterval(v);
                  writeInterval(v);
                }}
              />
              <CandleChart key={selected.id} productId={selected.id} symbol={selected.symbol} interval={interval} locale={locale} decimals={priceDecimals(selected.price, selected.open, selected.high, selected.low)} />
              <BuyButtons onBuy={setSheet} disabled={selected.durations.length === 0} />
            </section>
          ) : (
            <section className="card t-trade t-skeleton" aria-busy="true" aria-label={tc("loading")} />
          )}
        </>
      )}

      <section className="t-lists">
        <div className="t-tabs" role="tablist" aria-label={t("orders_label")}>
          <button type="button" role="tab" aria-selected={tab === 0} className={tab === 0 ? "t-tab t-tab-on" : "t-tab"} data-testid="positions-tab" onClick={() => chooseTab(0)}>
            {t("positions")}
            {hold.total > 0 ? <span className="t-tab-count">{hold.total}</span> : null}
          </button>
          <button type="button" role="tab" aria-selected={tab === 1} className={tab === 1 ? "t-tab t-tab-on" : "t-tab"} data-testid="history-tab" onClick={() => chooseTab(1)}>
            {t("history")}
          </button>
        </div>
        <div role="tabpanel">
          {tab === 0 ? (
            <PositionList items={hold.items} server_time={hold.server_time} locale={locale} />
          ) : (
            <>
              <HistoryList items={history.items} locale={locale} />
              <LoadMore pages={history.pages} total={history.total} count={history.items.length} />
              {root?.user ? <CsvDownload kind="orders" /> : null}
            </>
          )}
        </div>
      </section>

      {sheet && selected ? (
        <OrderSheet
          product={selected}
          direction={sheet}
          locale={locale}
          balance_micro={root?.user?.balance_micro ?? 0}
          onClose={close}
          onPlaced={() => {
            setSheet(null);
            chooseTab(0);
          }}
        />
      ) : null}
    </Screen>
  );
}

/** The market switcher: each pair with its live price and rise/fall. */
function ProductSwitcher({ products, live, selected, locale, onSelect }: { products: Product[]; live: Record<string, LiveQuote>; selected: number | null; locale: string; onSelect: (i: number) => void }) {
  const { t } = useTranslation("trade");
  return (
    <div className="t-switcher" role="tablist" aria-label={t("switcher_label")}>
      {products.map((p, i) => {
        const q = withLive(p, live[p.symbol]);
        return (
          <button key={p.id} type="button" role="tab" aria-selected={i === selected} className={i === selected ? "t-switch t-switch-on" : "t-switch"} data-testid="product-switch" data-symbol={p.symbol} onClick={() => onSelect(i)}>
            <strong>{p.symbol}</strong>
            <span className="t-switch-line">
              <LivePrice price={q.price} move={q.move} locale={locale} />
              <ChangePill change={q.change_pct} locale={locale} />
            </span>
          </button>
        );
      })}
    </div>
  );
}
