import { useFetchers, useNavigation, useRevalidator, type ShouldRevalidateFunction } from "@remix-run/react";
import { useCallback, useEffect, useRef } from "react";

/**
 * After an action answered 401, do not reload the page's data: that reload would redirect to
 * login at once, before the user sees the product's "Login has expired" modal (its OK button
 * goes to login with the path to come back to). After a network failure, reloading would
 * fail too and replace the page with an error view; the 'error' toast is the answer instead.
 */
export const shouldRevalidate: ShouldRevalidateFunction = ({ actionResult, defaultShouldRevalidate }) => {
  const result = actionResult as { status?: number; network?: boolean } | undefined;
  if (result?.status === 401 || result?.network) return false;
  return defaultShouldRevalidate;
};

/**
 * Reloads the page's data every `every_ms` while the page is visible and no reload is running:
 * the console's live pages (a market's exposure, the operations signals).
 */
export function useRevalidateEvery(every_ms: number): void {
  const reload = useBackgroundRevalidate();
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") reload();
    }, every_ms);
    return () => clearInterval(timer);
  }, [reload, every_ms]);
}

/**
 * Whether a reload nobody asked for (a socket's news, a timer) may start now: not while the
 * user's own submission, a navigation or another reload is under way. A reload started during a
 * fetcher's submission makes the router drop that submission's redirect (a sign-in would
 * stay on its form, signed in but not taken on); and the submission's own answer reloads the
 * page's data anyway.
 */
export function quietNow(navigation_state: string, revalidation_state: string, fetcher_states: readonly string[]): boolean {
  return navigation_state === "idle" && revalidation_state === "idle" && fetcher_states.every((s) => s === "idle");
}

/**
 * The page's reload for background causes: now when the page is quiet (`quietNow`), else once
 * it is. Every reload that the user did not ask for goes through this.
 */
export function useBackgroundRevalidate(): () => void {
  const revalidator = useRevalidator();
  const navigation = useNavigation();
  const fetchers = useFetchers();
  const quiet = quietNow(navigation.state, revalidator.state, fetchers.map((f) => f.state));
  const live = useRef({ quiet, revalidate: revalidator.revalidate });
  live.current = { quiet, revalidate: revalidator.revalidate };
  const waiting = useRef(false);
  useEffect(() => {
    if (!quiet || !waiting.current) return;
    waiting.current = false;
    live.current.revalidate();
  }, [quiet]);
  return useCallback(() => {
    if (live.current.quiet) live.current.revalidate();
    else waiting.current = true;
  }, []);
}
