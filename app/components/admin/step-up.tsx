import { useFetcher, type FetcherWithComponents } from "@remix-run/react";
import { useGuardedFetcher } from "../../lib/tap-guard";
import { createContext, useCallback, useContext, useRef, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { CodeField } from "../code-field";
import { useFieldGuard } from "../form";
import { Dialog } from "../ui";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useOnceEach } from "../../lib/use-once-each";

/**
 * The console's answer to `step_up_required` (decision 118): a money action whose confirmation
 * is older than five minutes opens a small code prompt; once the code is right the action is
 * sent again, unchanged. The console layout provides it; every console form that posts goes
 * through `useConsoleFetcher`.
 */
type Ask = (retry: () => void) => void;
const StepUpContext = createContext<Ask | null>(null);

export function StepUpProvider({ children }: { children: ReactNode }) {
  const [retry, setRetry] = useState<(() => void) | null>(null);
  const ask = useCallback<Ask>((r) => setRetry(() => r), []);
  const close = useCallback(() => setRetry(null), []);
  return (
    <StepUpContext.Provider value={ask}>
      {children}
      {retry ? (
        <StepUpPrompt
          onConfirmed={() => {
            close();
            retry();
          }}
          onCancel={close}
        />
      ) : null}
    </StepUpContext.Provider>
  );
}

function StepUpPrompt({ onConfirmed, onCancel }: { onConfirmed: () => void; onCancel: () => void }) {
  const { t } = useTranslation("admin");
  const guardFields = useFieldGuard();
  // No key: each prompt has its own fetcher, so an earlier prompt's answer is never read again.
  const fetcher = useFetcher<PageEnvelope>();
  useEnvelope(fetcher.data, () => onConfirmed());
  return (
    <Dialog title={t("step_up.title")} onClose={onCancel}>
      <fetcher.Form
        method="post"
        action="/admin/step-up"
        className="form"
        noValidate
        data-testid="step-up-form"
        onSubmit={guardFields(["code"])}
      >
        <p className="dialog-text">{t("step_up.note")}</p>
        <CodeField allowRecovery={false} autoFocus />
        <div className="dialog-actions">
          <button type="button" className="btn btn-plain" onClick={onCancel}>
            {t("cancel")}
          </button>
          <button type="submit" className="btn btn-primary" disabled={fetcher.state !== "idle"} data-testid="step-up-confirm">
            {t("step_up.confirm")}
          </button>
        </div>
      </fetcher.Form>
    </Dialog>
  );
}

type Sent = { formData: FormData; action: string; method: "post" | "put" | "patch" | "delete"; encType: "application/x-www-form-urlencoded" | "multipart/form-data" };

/**
 * `useFetcher` for console forms: an answer that asks for a fresh confirmation is not shown to
 * the form (it stays as it was); the code prompt opens and, once confirmed, the same submission
 * goes again. Outside the console (no provider) it is a plain fetcher.
 */
export function useConsoleFetcher<T = unknown>(): FetcherWithComponents<PageEnvelope<T>> {
  const fetcher = useGuardedFetcher<PageEnvelope<T>>();
  const ask = useContext(StepUpContext);
  const sent = useRef<Sent | null>(null);
  if (fetcher.formData && fetcher.formAction) {
    sent.current = {
      formData: fetcher.formData,
      action: fetcher.formAction,
      method: (fetcher.formMethod ?? "post").toLowerCase() as Sent["method"],
      encType: fetcher.formEncType === "multipart/form-data" ? "multipart/form-data" : "application/x-www-form-urlencoded",
    };
  }
  const answer = fetcher.data as PageEnvelope<{ error?: string }> | undefined;
  const stepUp = ask !== null && answer?.data?.error === "step_up_required";
  // Once per answer that asks for a confirmation.
  useOnceEach(stepUp ? answer : undefined, () => {
    const again = sent.current;
    ask?.(() => {
      if (again) fetcher.submit(again.formData, { method: again.method, action: again.action, encType: again.encType });
    });
  });
  return stepUp ? { ...fetcher, data: undefined } : fetcher;
}
