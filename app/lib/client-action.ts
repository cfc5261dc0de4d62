import type { ClientActionFunctionArgs } from "@remix-run/react";
import { isUpload, timeoutFor, withTimeout } from "../../worker/api/request-timeout";

/** What the page gets instead of an answer: the network failed, or (`timeout`) the time ran out. */
export type NetworkFailure = { status: 0 | 504; code: 0; msg: ""; data: null; network: true; timeout?: true };

/**
 * Every route with an action exports this as its clientAction: a network failure becomes
 * `{network: true}` (the page shows the short 'error' toast) instead of an error page, and a
 * submission unanswered after the client's limit (60 s, an upload 10 s: decision 142) becomes
 * `{network: true, timeout: true}` (the page says `errors.request_timeout`). The request
 * cannot be taken back: its late answer is ignored.
 */
export async function clientAction({ request, serverAction }: ClientActionFunctionArgs) {
  const limit = timeoutFor(isUpload(null, request.headers.get("content-type")));
  try {
    const answer = await withTimeout(serverAction(), AbortSignal.timeout(limit));
    if (answer.status === "ok") return answer.value;
    return { status: 504, code: 0, msg: "", data: null, network: true, timeout: true } satisfies NetworkFailure;
  } catch (err) {
    if (err instanceof Response) throw err;
    if (err instanceof TypeError) return { status: 0, code: 0, msg: "", data: null, network: true } satisfies NetworkFailure;
    throw err;
  }
}
