import { useEffect, useRef } from "react";

/**
 * Calls `act` once for each new `value` (by identity) that the page commits, the check made
 * after every commit rather than when an effect's dependencies change. A fetcher's answer is
 * read from the router's store while rendering; when React abandons the render that first
 * carried the answer (a newer router update arrives mid-render) and commits a later one, an
 * effect keyed on the answer was seen not to run at all (decision 164: the promotions journey
 * lost the four-eyes refusal's toast about once in five runs). Checked on every commit, the
 * answer is met on the first commit that shows it, whichever render that was.
 */
export function useOnceEach<V>(value: V | null | undefined, act: (value: V) => void): void {
  const seen = useRef<unknown>(undefined);
  const latest = useRef(act);
  latest.current = act;
  useEffect(() => {
    if (value === undefined || value === null || seen.current === value) return;
    seen.current = value;
    latest.current(value);
  });
}
