import { useFetchers, useNavigate, useNavigation } from "@remix-run/react";
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { LOADING_MASK_DELAY_MS, TOAST_MS } from "../lib/client-defaults";
import { useFormTapGuard } from "../lib/tap-guard";

/**
 * App-wide feedback, as docs/product.md describes it: toasts (default 3000 ms, decision 142), confirm dialogs,
 * the 401 "hint" modal whose only button goes to login, and a loading mask while a
 * navigation or submission is in flight (shown after 200 ms so quick calls do not flash).
 * It also guards every form of the app against repeated taps (app/lib/tap-guard.ts).
 */
type ConfirmState = { message: string; resolve: (ok: boolean) => void } | null;
type Ui = {
  toast: (message: string, ms?: number) => void;
  confirm: (message: string) => Promise<boolean>;
  sessionExpired: () => void;
};

const UiContext = createContext<Ui | null>(null);

export function useUi(): Ui {
  const ui = useContext(UiContext);
  if (!ui) throw new Error("useUi outside UiProvider");
  return ui;
}

export { TOAST_MS };

export function UiProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [toastText, setToastText] = useState<string | null>(null);
  const [confirmState, setConfirmState] = useState<ConfirmState>(null);
  const [expired, setExpired] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>();

  const ui = useMemo<Ui>(
    () => ({
      toast(message, ms = TOAST_MS) {
        clearTimeout(timer.current);
        setToastText(message);
        timer.current = setTimeout(() => setToastText(null), ms);
      },
      confirm: (message) => new Promise<boolean>((resolve) => setConfirmState({ message, resolve })),
      sessionExpired: () => setExpired(true),
    }),
    [],
  );

  const closeConfirm = (answer: boolean) => {
    confirmState?.resolve(answer);
    setConfirmState(null);
  };

  const goLogin = () => {
    setExpired(false);
    const here = window.location.pathname + window.location.search;
    if (here.startsWith("/admin")) navigate("/admin/login", { replace: true });
    else navigate(`/pages/user/login?path=${encodeURIComponent(here)}`, { replace: true });
  };

  return (
    <UiContext.Provider value={ui}>
      {children}
      <TapGuard />
      <LoadingMask />
      {toastText ? (
        <div className="toast" role="status" aria-live="polite">
          {toastText}
        </div>
      ) : null}
      {confirmState ? (
        <Dialog title={t("hint")} onClose={() => closeConfirm(false)}>
          <p className="dialog-text">{confirmState.message}</p>
          <div className="dialog-actions">
            <button type="button" className="btn btn-plain" onClick={() => closeConfirm(false)}>
              {t("cancel")}
            </button>
            <button type="button" className="btn btn-primary" onClick={() => closeConfirm(true)} autoFocus>
              {t("confirm")}
            </button>
          </div>
        </Dialog>
      ) : null}
      {expired ? (
        <Dialog title={t("hint")}>
          <p className="dialog-text">{t("login_expired")}</p>
          <div className="dialog-actions">
            <button type="button" className="btn btn-primary" onClick={goLogin} autoFocus>
              {t("ok")}
            </button>
          </div>
        </Dialog>
      ) : null}
    </UiContext.Provider>
  );
}

export function Dialog({ title, children, onClose }: { title: string; children: ReactNode; onClose?: () => void }) {
  useEffect(() => {
    if (!onClose) return;
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);
  return (
    <div className="dialog-backdrop">
      <div className="dialog" role="alertdialog" aria-modal="true" aria-labelledby="dialog-title">
        <h2 id="dialog-title" className="dialog-title">
          {title}
        </h2>
        {children}
      </div>
    </div>
  );
}

/** Repeated taps on any form of the app (decision 142); its own component, so only it re-renders as submissions come and go. */
function TapGuard() {
  useFormTapGuard();
  return null;
}

function LoadingMask() {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const fetchers = useFetchers();
  const busy = navigation.state !== "idle" || fetchers.some((f) => f.state === "submitting");
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    if (!busy) return setVisible(false);
    const id = setTimeout(() => setVisible(true), LOADING_MASK_DELAY_MS);
    return () => clearTimeout(id);
  }, [busy]);
  if (!visible) return null;
  return (
    <div className="loading-mask" aria-busy="true" aria-label={t("loading")} data-testid="loading-mask">
      <div className="spinner" />
    </div>
  );
}

/** Copies text and says 'Copy successful'. */
export function useCopy() {
  const { t } = useTranslation();
  const ui = useUi();
  return useCallback(
    async (text: string) => {
      try {
        await navigator.clipboard.writeText(text);
      } catch {
        const area = document.createElement("textarea");
        area.value = text;
        document.body.appendChild(area);
        area.select();
        document.execCommand("copy");
        area.remove();
      }
      ui.toast(t("copy_success"));
    },
    [t, ui],
  );
}
