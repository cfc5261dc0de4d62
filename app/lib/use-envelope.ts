import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { useUi } from "../components/ui";

export type PageEnvelope<T = unknown> = { status: number; code: 0 | 1; msg: string; data?: T; network?: boolean };

/**
 * Reacts once to each new action answer: 401 → the login-expired modal; network failure →
 * the 'error' toast for 2 s; code 0 → the server's message as a toast; code 1 → onSuccess.
 */
export function useEnvelope<T>(answer: PageEnvelope<T> | undefined, onSuccess?: (data: T, msg: string) => void) {
  const ui = useUi();
  const { t } = useTranslation();
  const seen = useRef<unknown>(undefined);
  const success = useRef(onSuccess);
  success.current = onSuccess;
  useEffect(() => {
    if (!answer || seen.current === answer) return;
    seen.current = answer;
    if (answer.network) ui.toast(t("toast_error"), 2000);
    else if (answer.status === 401) ui.sessionExpired();
    else if (answer.code !== 1) ui.toast(answer.msg);
    else success.current?.(answer.data as T, answer.msg);
  }, [answer, ui, t]);
}
