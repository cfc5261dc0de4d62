import { useEffect, useState } from "react";
import { formatDateTime } from "../../lib/format";

/**
 * Times in the user's own time zone. The server does not know it, so the server render (and
 * the hydrating render, which must match it) says the time in UTC; right after hydration,
 * and on every later page, it is the browser's local time.
 */
let hydrated = false;

export function useDateTime(locale: string): (ms: number) => string {
  const [local, setLocal] = useState(hydrated);
  useEffect(() => {
    hydrated = true;
    setLocal(true);
  }, []);
  return (ms: number) =>
    local
      ? formatDateTime(ms, locale)
      : `${new Intl.DateTimeFormat(locale, { dateStyle: "short", timeStyle: "medium", timeZone: "UTC" }).format(new Date(ms))} UTC`;
}

export function LocalTime({ ms, locale }: { ms: number; locale: string }) {
  const format = useDateTime(locale);
  return <time dateTime={new Date(ms).toISOString()}>{format(ms)}</time>;
}
