import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { chartThemeOptions, currentTheme, useTheme } from "../../lib/theme";
import { timedFetch } from "../../lib/request-timeout";
import type { CandlestickData, IChartApi, ISeriesApi, UTCTimestamp } from "lightweight-charts";
import { useQuoteEvents, type QuoteEvent } from "../../lib/quotes";
import { INTERVAL_MS, INTERVALS, type Interval } from "../../lib/trade-types";

type Bar = CandlestickData<UTCTimestamp>;
type ApiCandle = { t: number; o: string; h: string; l: string; c: string; v: string };

const UP = "#16a34a";
const DOWN = "#e5484d";
const CANDLE_LIMIT = 240;

/** Interval tabs (1m, 5m, 15m, 1h) above the chart. */
export function IntervalTabs({ value, onChange }: { value: Interval; onChange: (v: Interval) => void }) {
  const { t } = useTranslation("trade");
  return (
    <div className="t-intervals" role="tablist" aria-label={t("interval_label")}>
      {INTERVALS.map((iv) => (
        <button
          key={iv}
          type="button"
          role="tab"
          aria-selected={iv === value}
          className={iv === value ? "t-interval t-interval-on" : "t-interval"}
          data-testid="interval-tab"
          data-interval={iv}
          onClick={() => onChange(iv)}
        >
          {iv.endsWith("h") ? t("interval_hours", { count: Number(iv.slice(0, -1)) }) : t("interval_minutes", { count: Number(iv.slice(0, -1)) })}
        </button>
      ))}
    </div>
  );
}

/**
 * Candles of one product (lightweight-charts, created in the browser only: the library is
 * imported inside the effect, so the server render never runs DOM code). History comes from
 * `/api/index/candles` (public); live ticks from the quote socket are folded into the current
 * candle of the selected interval. After a reconnect the history is loaded again, closing
 * any gap. Times on the axis are the user's local time.
 */
export function CandleChart({ productId, symbol, interval, locale, decimals }: { productId: number; symbol: string; interval: Interval; locale: string; decimals: number }) {
  const { t } = useTranslation("trade");
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<IChartApi | null>(null);
  const series = useRef<ISeriesApi<"Candlestick"> | null>(null);
  const last = useRef<Bar | null>(null);
  /** Ticks that arrive while history loads, folded in once it is drawn. */
  const pending = useRef<{ price: number; ts: number }[] | null>(null);
  const [ready, setReady] = useState(false);
  const [state, setState] = useState<"loading" | "ready" | "error">("loading");
  const [reload, setReload] = useState(0);
  const theme = useTheme();
  // The canvas cannot follow CSS variables: recolour it when the theme changes.
  useEffect(() => chart.current?.applyOptions(chartThemeOptions(theme)), [theme, ready]);

  // The chart itself: once per mount (and locale / precision).
  useEffect(() => {
    let disposed = false;
    void import("lightweight-charts").then(({ createChart, CandlestickSeries }) => {
      if (disposed || !box.current) return;
      const dateTime = new Intl.DateTimeFormat(locale, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
      const hm = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit" });
      const day = new Intl.DateTimeFormat(locale, { month: "short", day: "numeric" });
      const month = new Intl.DateTimeFormat(locale, { month: "short" });
      const year = new Intl.DateTimeFormat(locale, { year: "numeric" });
      const themed = chartThemeOptions(currentTheme());
      const c = createChart(box.current, {
        autoSize: true,
        layout: { ...themed.layout, fontSize: 11, attributionLogo: true },
        grid: themed.grid,
        rightPriceScale: { ...themed.rightPriceScale, scaleMargins: { top: 0.12, bottom: 0.08 } },
        timeScale: {
          ...themed.timeScale,
          timeVisible: true,
          secondsVisible: false,
          rightOffset: 3,
          barSpacing: 7,
          // TickMarkType: 0 year, 1 month, 2 day of month, 3+ time.
          tickMarkFormatter: (time: unknown, type: number) => {
            const d = new Date(Number(time) * 1000);
            return type === 0 ? year.format(d) : type === 1 ? month.format(d) : type === 2 ? day.format(d) : hm.format(d);
          },
        },
        localization: { locale, timeFormatter: (time: unknown) => dateTime.format(new Date(Number(time) * 1000)) },
        crosshair: { mode: 0 },
        // Vertical swipes scroll the page, not the chart.
        handleScroll: { vertTouchDrag: false, mouseWheel: false },
        handleScale: { mouseWheel: false },
      });
      series.current = c.addSeries(CandlestickSeries, {
        upColor: UP,
        downColor: DOWN,
        borderVisible: false,
        wickUpColor: UP,
        wickDownColor: DOWN,
        priceFormat: { type: "price", precision: decimals, minMove: 1 / 10 ** decimals },
      });
      chart.current = c;
      setReady(true);
    });
    return () => {
      disposed = true;
      chart.current?.remove();
      chart.current = null;
      series.current = null;
      setReady(false);
    };
  }, [locale, decimals]);

  // History for the product and interval; reloaded after a reconnect.
  useEffect(() => {
    if (!ready) return;
    const controller = new AbortController();
    pending.current = [];
    last.current = null;
    setState("loading");
    const query = new URLSearchParams({ id: String(productId), interval, limit: String(CANDLE_LIMIT) });
    timedFetch(`/api/index/candles?${query}`, { signal: controller.signal, headers: { accept: "application/json" } })
      .then((res) => res.json() as Promise<{ code: number; data: ApiCandle[] }>)
      .then((body) => {
        if (body.code !== 1 || !Array.isArray(body.data)) throw new Error("candles");
        const bars: Bar[] = body.data.map((k) => ({ time: (k.t / 1000) as UTCTimestamp, open: Number(k.o), high: Number(k.h), low: Number(k.l), close: Number(k.c) }));
        series.current?.setData(bars);
        last.current = bars[bars.length - 1] ?? null;
        const queued = pending.current ?? [];
        pending.current = null;
        for (const tick of queued) fold(tick.price, tick.ts);
        if (reload === 0) chart.current?.timeScale().scrollToRealTime();
        setState("ready");
      })
      .catch((err) => {
        if (controller.signal.aborted) return;
        console.error("candles", err);
        pending.current = null;
        setState("error");
      });
    return () => controller.abort();
    // `fold` reads refs only; `reload` is the reconnect trigger.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ready, productId, interval, reload]);

  function fold(price: number, ts: number) {
    const s = series.current;
    if (!s || !Number.isFinite(price)) return;
    const time = ((Math.floor(ts / INTERVAL_MS[interval]) * INTERVAL_MS[interval]) / 1000) as UTCTimestamp;
    const bar = last.current;
    if (bar && time < bar.time) return; // older than what is drawn
    const next: Bar = bar && bar.time === time ? { time, open: bar.open, high: Math.max(bar.high, price), low: Math.min(bar.low, price), close: price } : { time, open: price, high: price, low: price, close: price };
    last.current = next;
    s.update(next);
  }

  useQuoteEvents(symbol, (event: QuoteEvent) => {
    if (event.type === "reconnected") {
      setReload((n) => n + 1);
      return;
    }
    if (event.type !== "tick") return;
    const price = Number(event.price);
    if (pending.current) pending.current.push({ price, ts: event.ts });
    else fold(price, event.ts);
  });

  return (
    <div className="t-chart-wrap">
      <div ref={box} className="t-chart" data-testid="chart" data-interval={interval} data-state={state} role="figure" aria-label={t("chart_label", { symbol, interval })} />
      {state === "loading" && !ready ? <div className="t-chart-overlay">{t("chart_loading")}</div> : null}
      {state === "error" ? (
        <div className="t-chart-overlay">
          <span>{t("chart_error")}</span>
          <button type="button" className="link" onClick={() => setReload((n) => n + 1)}>
            {t("retry", { ns: "common" })}
          </button>
        </div>
      ) : null}
    </div>
  );
}
