import { REQUEST_TIMEOUT_MS, UPLOAD_TIMEOUT_MS } from "./client-defaults";

/**
 * The client's request timeouts (decision 142): one rule for the pages' in-process API calls
 * (worker/api/in-process.ts), their submissions (app/lib/client-action.ts) and the browser's
 * own fetches (`timedFetch`). A request that runs out of time cannot be taken back; its late
 * answer is ignored and the user sees `errors.request_timeout`.
 */
export type Timed<T> = { status: "ok"; value: T } | { status: "timed_out" };

/** The error code a timed-out request answers with (words in locales/<lng>/errors.json). */
export const REQUEST_TIMEOUT_CODE = "request_timeout";

/** Uploads (a picture in a multipart body) get the short limit, everything else the long one. */
export function timeoutFor(upload: boolean): number {
  return upload ? UPLOAD_TIMEOUT_MS : REQUEST_TIMEOUT_MS;
}

/** Whether a request or its body is a multipart upload. */
export function isUpload(body: unknown, content_type?: string | null): boolean {
  if (typeof FormData !== "undefined" && body instanceof FormData) return true;
  return (content_type ?? "").toLowerCase().startsWith("multipart/form-data");
}

/** `work`'s value, or `timed_out` once `signal` aborts first (AbortSignal.timeout(ms) in practice). */
export async function withTimeout<T>(work: Promise<T>, signal: AbortSignal): Promise<Timed<T>> {
  if (signal.aborted) return { status: "timed_out" };
  let onAbort: () => void = () => {};
  const timedOut = new Promise<Timed<T>>((resolve) => {
    onAbort = () => resolve({ status: "timed_out" });
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work.then((value): Timed<T> => ({ status: "ok", value })), timedOut]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

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
