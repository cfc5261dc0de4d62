/** A request a page makes to the API (a loader's or action's call, a submission, a fetch) fails for the user after this long. */
export const REQUEST_TIMEOUT_MS = 60_000;

/** A picture upload (deposit screenshot, ID photo, a chat picture) fails after this long: at most 1 MiB, so ten seconds is slow already. */
export const UPLOAD_TIMEOUT_MS = 10_000;

/**
 * The client's request timeouts (decision 142): one rule for the pages' in-process API calls
 * (worker/api/in-process.ts), their submissions (app/lib/client-action.ts) and the browser's
 * own fetches (`timedFetch` in app/lib/request-timeout.ts). It lives with the API because a
 * page's server side uses it too, and imports point from app/ to worker/, never back. A request
 * that runs out of time cannot be taken back; its late answer is ignored and the user sees
 * `errors.request_timeout`.
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
