/**
 * Marks a call as in-process (a page's loader or action): a value made at start-up that never
 * leaves this isolate, so no outside request can carry it. The request URL cannot say so any
 * more: in-process calls carry the page's own origin.
 */
export const IN_PROCESS_HEADER = "x-in-process";
let mark: string | null = null;
// Made at first use: workerd allows no random values in global scope.
export const inProcessMark = () => (mark ??= crypto.randomUUID());

/** Whether the API request came from `inProcessApi` (a page), not from a client. */
export function isInProcessRequest(headers: Headers): boolean {
  return headers.get(IN_PROCESS_HEADER) === inProcessMark();
}
