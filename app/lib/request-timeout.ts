import { isUpload, timeoutFor } from "../../worker/api/request-timeout";

/** The browser's side of the request timeouts (the rule itself: worker/api/request-timeout.ts). */

/** The error a `timedFetch` rejects with when its time runs out (a DOMException named TimeoutError). */
export function isTimeoutError(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { name?: unknown }).name === "TimeoutError";
}

/**
 * `fetch` that gives up after the client's limit: the request is aborted and the promise
 * rejects with a TimeoutError (see `isTimeoutError`). A caller's own signal still aborts it.
 */
export function timedFetch(input: string, init: RequestInit = {}, timeout_ms = timeoutFor(isUpload(init.body))): Promise<Response> {
  const timeout = AbortSignal.timeout(timeout_ms);
  const signal = init.signal ? anySignal([init.signal, timeout]) : timeout;
  return fetch(input, { ...init, signal });
}

/** AbortSignal.any where the browser has it, else the same by hand (older WebViews). */
function anySignal(signals: AbortSignal[]): AbortSignal {
  if (typeof AbortSignal.any === "function") return AbortSignal.any(signals);
  const controller = new AbortController();
  for (const s of signals) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    s.addEventListener("abort", () => controller.abort(s.reason), { once: true });
  }
  return controller.signal;
}
