/** A named state as a coloured pill. Tests read `data-status` (the API's status code). */
export type StatusTone = "pending" | "good" | "bad" | "neutral";

export function StatusBadge({ status, label, tone }: { status: string; label: string; tone: StatusTone }) {
  return (
    <span className={`m-status m-status-${tone}`} data-testid="status" data-status={status}>
      {label}
    </span>
  );
}
