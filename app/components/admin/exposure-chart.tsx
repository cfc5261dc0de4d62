import { useEffect, useRef } from "react";
import { chartThemeOptions, currentTheme, useTheme } from "../../lib/theme";
import type { IChartApi, ISeriesApi, LineData, UTCTimestamp } from "lightweight-charts";
import { MICRO_PER_USDT } from "../../../worker/domain/money/units";

export type ExposurePoint = { ts_ms: number; up_payout_micro: number; down_payout_micro: number; worst_case_micro: number };

const LINES = [
  { key: "up_payout_micro", color: "#16a34a" },
  { key: "down_payout_micro", color: "#e5484d" },
  { key: "worst_case_micro", color: "#1d4ed8" },
] as const;

/** One point per second (the chart needs strictly increasing times): the last snapshot of each second, in USDT. */
function lineOf(history: readonly ExposurePoint[], key: (typeof LINES)[number]["key"]): LineData<UTCTimestamp>[] {
  const bySecond = new Map<number, number>();
  for (const p of history) bySecond.set(Math.floor(p.ts_ms / 1000), p[key] / MICRO_PER_USDT);
  return [...bySecond].sort((a, b) => a[0] - b[0]).map(([time, value]) => ({ time: time as UTCTimestamp, value }));
}

/**
 * A market's exposure over time: what a win of each side would pay, and the worst case
 * (lightweight-charts, created in the browser only: the library is imported inside the
 * effect, so the server render never runs DOM code). `labels` name the three lines.
 */
export function ExposureChart({ history, labels, locale }: { history: readonly ExposurePoint[]; labels: [string, string, string]; locale: string }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<IChartApi | null>(null);
  const series = useRef<ISeriesApi<"Line">[]>([]);
  const latest = useRef(history);
  const theme = useTheme();
  // The canvas cannot follow CSS variables: recolour it when the theme changes.
  useEffect(() => chart.current?.applyOptions(chartThemeOptions(theme)), [theme]);
  latest.current = history;

  useEffect(() => {
    let disposed = false;
    void import("lightweight-charts").then(({ createChart, LineSeries }) => {
      if (disposed || !box.current) return;
      const themed = chartThemeOptions(currentTheme());
      const c = createChart(box.current, {
        autoSize: true,
        layout: { ...themed.layout, fontSize: 11, attributionLogo: true },
        grid: themed.grid,
        rightPriceScale: themed.rightPriceScale,
        timeScale: { ...themed.timeScale, timeVisible: true, secondsVisible: true },
        localization: { locale },
        handleScroll: false,
        handleScale: false,
      });
      series.current = LINES.map((line, i) => c.addSeries(LineSeries, { color: line.color, lineWidth: 2, title: labels[i], priceFormat: { type: "price", precision: 2, minMove: 0.01 } }));
      chart.current = c;
      draw();
    });
    return () => {
      disposed = true;
      chart.current?.remove();
      chart.current = null;
      series.current = [];
    };
    // The labels only change with the locale.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [locale]);

  function draw() {
    LINES.forEach((line, i) => series.current[i]?.setData(lineOf(latest.current, line.key)));
    chart.current?.timeScale().fitContent();
  }

  useEffect(draw, [history]);

  return <div ref={box} className="exposure-chart" style={{ height: 220 }} data-testid="exposure-chart" />;
}
