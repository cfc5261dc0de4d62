/**
 * A small bar chart as inline SVG (server-rendered, no canvas): one bar per point, oldest left,
 * a dashed line at the threshold when there is one, bars past it (or marked bad) in the danger
 * colour. The SVG stretches to its box's width; the scale's top and the time axis's two ends are
 * HTML beside it, so their text keeps its size on a phone. Each bar's title tells its value.
 */
/** `empty`: nothing was measured at that point (its slot stays blank). */
export type Bar = {
  key: string | number;
  value: number;
  title: string;
  bad?: boolean;
  empty?: boolean;
};

export function BarChart({
  bars,
  threshold,
  label,
  top,
  from,
  to,
  height = 100,
  testId,
}: {
  bars: readonly Bar[];
  threshold?: number;
  label: string;
  top: string;
  from: string;
  to: string;
  height?: number;
  testId?: string;
}) {
  const width = 600;
  const max = Math.max(1, threshold ?? 0, ...bars.map((b) => b.value)) * 1.1;
  const slot = width / Math.max(bars.length, 1);
  const y = (v: number) => height - (Math.max(0, v) / max) * height;
  return (
    <figure className="bar-chart" data-testid={testId}>
      <span className="bar-chart-top">{top}</span>
      <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label={label} style={{ width: "100%", height }}>
        <rect x={0} y={0} width={width} height={height} className="bar-chart-bg" />
        {bars.map((b, i) =>
          b.empty ? null : (
            // At least 2 units tall: a value near zero still shows it was measured.
            <rect
              key={b.key}
              x={i * slot + slot * 0.15}
              y={Math.min(y(b.value), height - 2)}
              width={Math.max(1, slot * 0.7)}
              height={Math.max(2, height - y(b.value))}
              className={b.bad || (threshold !== undefined && b.value > threshold) ? "bar bar-bad" : "bar"}
            >
              <title>{b.title}</title>
            </rect>
          )
        )}
        {threshold !== undefined ? <line x1={0} x2={width} y1={y(threshold)} y2={y(threshold)} className="bar-threshold" /> : null}
      </svg>
      <figcaption className="bar-chart-axis">
        <span>{from}</span>
        <span>{to}</span>
      </figcaption>
    </figure>
  );
}

/** How full a value is against its threshold, as a thin bar beside the number (red past it). */
export function Meter({ value, threshold }: { value: number; threshold: number }) {
  const share = Math.min(1, value / threshold);
  return (
    <span className="ops-meter" aria-hidden="true">
      <span className={value > threshold ? "ops-meter-fill bad" : "ops-meter-fill"} style={{ width: `${Math.max(2, share * 100)}%` }} />
    </span>
  );
}
