import type { ShouldRevalidateFunction } from "@remix-run/react";

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
