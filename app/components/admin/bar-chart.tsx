/**
 * A small bar chart as inline SVG (server-rendered, no canvas): one bar per point, a dashed line
 * at the threshold when there is one, bars past it in the danger colour. The SVG scales to its
 * box's width; `label` names it for screen readers, each bar's title tells its value.
 */
export type Bar = { key: string | number; value: number; title: string };

export function BarChart({ bars, threshold, label, height = 120, testId }: { bars: readonly Bar[]; threshold?: number; label: string; height?: number; testId?: string }) {
  const width = 600;
  const top = Math.max(1, threshold ?? 0, ...bars.map((b) => b.value)) * 1.1;
  const slot = width / Math.max(bars.length, 1);
  const y = (v: number) => height - (Math.max(0, v) / top) * height;
  return (
    <svg className="bar-chart" viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label={label} data-testid={testId} style={{ width: "100%", height }}>
      <rect x={0} y={0} width={width} height={height} className="bar-chart-bg" />
      {bars.map((b, i) => (
        <rect key={b.key} x={i * slot + slot * 0.15} y={y(b.value)} width={Math.max(1, slot * 0.7)} height={height - y(b.value)} className={threshold !== undefined && b.value > threshold ? "bar bar-bad" : "bar"}>
          <title>{b.title}</title>
        </rect>
      ))}
      {threshold !== undefined ? <line x1={0} x2={width} y1={y(threshold)} y2={y(threshold)} className="bar-threshold" /> : null}
    </svg>
  );
}
