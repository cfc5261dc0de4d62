/**
 * The client's promised behaviours in one place (decision 142, docs/product.md "Feedback
 * everywhere"). Every page, hook and helper that waits, shows or guards reads its number here.
 */

/** The request timeouts (60 s, 10 s for an upload) are the API's rule too: defined once, with it. */
export { REQUEST_TIMEOUT_MS, UPLOAD_TIMEOUT_MS } from "../../worker/api/request-timeout";

/** How long a toast (the app's notification) stays on screen. */
export const TOAST_MS = 3000;

/** The 'error' toast of a failed network call is shorter: the user retries at once. */
export const NETWORK_ERROR_TOAST_MS = 2000;

/** A second tap on a submitting button within this long of the first is ignored (and any tap while its submit is in flight). */
export const TAP_DEBOUNCE_MS = 500;

/** The loading mask appears only after this long, so quick calls do not flash. */
export const LOADING_MASK_DELAY_MS = 200;
