import { useTranslation } from "react-i18next";
import { useUi } from "../components/ui";
import { NETWORK_ERROR_TOAST_MS } from "./client-defaults";
import { useOnceEach } from "./use-once-each";

export type PageEnvelope<T = unknown> = { status: number; code: 0 | 1; msg: string; data?: T; network?: boolean; timeout?: boolean };

/** The words for a submission that never got its answer: timed out, or the network failed. */
export function networkFailureText(answer: PageEnvelope<unknown>, t: (key: string, opts?: { ns: string }) => string): string {
  return answer.timeout ? t("request_timeout", { ns: "errors" }) : t("toast_error", { ns: "common" });
}

/**
 * Reacts once to each new action answer: 401 → the login-expired modal; network failure →
 * the 'error' toast for 2 s; no answer in time → `errors.request_timeout` as a toast; code 0 → the server's message as a toast; code 1 → onSuccess.
 */
export function useEnvelope<T>(answer: PageEnvelope<T> | undefined, onSuccess?: (data: T, msg: string) => void) {
  const ui = useUi();
  const { t } = useTranslation();
  useOnceEach(answer, (answer) => {
    if (answer.timeout) ui.toast(networkFailureText(answer, t));
    else if (answer.network) ui.toast(networkFailureText(answer, t), NETWORK_ERROR_TOAST_MS);
    else if (answer.status === 401) ui.sessionExpired();
    else if (answer.code !== 1) ui.toast(answer.msg);
    else onSuccess?.(answer.data as T, answer.msg);
  });
}
