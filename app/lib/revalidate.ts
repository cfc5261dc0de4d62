import { useRevalidator, type ShouldRevalidateFunction } from "@remix-run/react";
import { useEffect } from "react";

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
  const revalidator = useRevalidator();
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === "visible" && revalidator.state === "idle") revalidator.revalidate();
    }, every_ms);
    return () => clearInterval(timer);
  }, [revalidator, every_ms]);
}
