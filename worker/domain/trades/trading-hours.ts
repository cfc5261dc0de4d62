/** Is `now` inside the product's UTC trading window ("" = always)? Windows may wrap midnight. */
export function isTradingTime(trading_hours: string, now_ms: number): boolean {
  const m = /^(\d\d):(\d\d)-(\d\d):(\d\d)$/.exec(trading_hours.trim());
  if (!m) return true;
  const minute = Math.floor((now_ms % 86_400_000) / 60_000);
  const from = Number(m[1]) * 60 + Number(m[2]);
  const to = Number(m[3]) * 60 + Number(m[4]);
  return from <= to ? minute >= from && minute < to : minute >= from || minute < to;
}
