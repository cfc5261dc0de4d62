import { useRouteLoaderData } from "@remix-run/react";
import { useConsoleFetcher } from "../components/admin/step-up";
import { useUi } from "../components/ui";
import { useEnvelope } from "./use-envelope";

/** Hooks and URL helpers the console's pages share (the components are in app/components/admin/). */

/** The signed-in operator, from the console layout's loader. */
export function useOperator(): { id: number; account: string } | undefined {
  return useRouteLoaderData<{ operator: { id: number; account: string } }>("routes/admin")?.operator;
}

/** Rows per page of a console queue (the loaders ask for this many). */
export const QUEUE_ROWS = 30;

/** The page number from `?page=`, at least 1. */
export function pageParam(url: URL): number {
  const n = Number(url.searchParams.get("page") ?? 1);
  return Number.isSafeInteger(n) && n >= 1 ? Math.min(n, 100_000) : 1;
}

/** `?status=` when it is one of the allowed values, else the first (the default tab). */
export function statusParam<S extends string>(url: URL, allowed: readonly S[]): S {
  const s = url.searchParams.get("status") as S | null;
  return s && allowed.includes(s) ? s : allowed[0];
}

/**
 * One fetcher per row or form: failures show the server's message (e.g. "This has already
 * been processed."), successes its confirmation; the page's loaders then run again.
 */
export function useAction(onSuccess?: () => void) {
  const ui = useUi();
  // A money action without a fresh confirmation asks for a code, then goes again (decision 118).
  const fetcher = useConsoleFetcher();
  useEnvelope(fetcher.data, (_d, msg) => {
    if (msg) ui.toast(msg);
    onSuccess?.();
  });
  return { fetcher, busy: fetcher.state !== "idle" };
}
