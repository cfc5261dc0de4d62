import { useEffect, useRef } from "react";

/**
 * Calls `act` once for each new `value` (by identity), checked after every commit rather than
 * when an effect's dependencies change. A fetcher's answer is read while rendering from a map the
 * router changes in place; when React bails out of such a render (props, state and context
 * unchanged) it keeps the render's hooks, the new dependencies among them, but drops its effects,
 * so an effect keyed on the answer never runs for it (decision 164: the promotions journey lost
 * the four-eyes refusal's toast about once in five runs). Compared with what was acted on, not
 * with the last render, the answer is met by the next commit whose effects run.
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
