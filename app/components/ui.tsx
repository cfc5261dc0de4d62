import { useFetchers, useNavigate, useNavigation } from "@remix-run/react";
import { createContext, useCallback, useContext, useEffect, useId, useMemo, useRef, useState, type ComponentPropsWithoutRef, type ReactNode } from "react";
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
      {toastText ? <Toast text={toastText} /> : null}
      {confirmState ? (
        <Dialog title={t("hint")} onClose={() => closeConfirm(false)}>
          <p className="dialog-text">{confirmState.message}</p>
          <div className="dialog-actions">
            <button type="button" className="btn btn-plain" onClick={() => closeConfirm(false)}>
              {t("cancel")}
            </button>
            <button type="button" className="btn btn-primary" onClick={() => closeConfirm(true)} data-autofocus>
              {t("confirm")}
            </button>
          </div>
        </Dialog>
      ) : null}
      {expired ? (
        <Dialog title={t("hint")}>
          <p className="dialog-text">{t("login_expired")}</p>
          <div className="dialog-actions">
            <button type="button" className="btn btn-primary" onClick={goLogin} data-autofocus>
              {t("ok")}
            </button>
          </div>
        </Dialog>
      ) : null}
    </UiContext.Provider>
  );
}

/**
 * The app's one modal: the platform's `<dialog>` opened with `showModal()`, so the page behind is
 * inert (Tab stays inside, a screen reader reads only the modal) and its backdrop is `::backdrop`.
 * It opens once mounted (in an effect: the server renders it closed) and focuses the element marked
 * `data-autofocus`, else the browser's choice (the first control). Escape calls `onClose`, and so
 * does a click on the backdrop when `backdropCloses`; without `onClose` it cannot be dismissed (it
 * opens again if the browser closes it anyway). The caller closes it by no longer rendering it;
 * whatever had focus before gets it back then. Its CSS gives `display` only to `[open]`, or the
 * closed dialog would show.
 */
export function Modal({
  onClose,
  backdropCloses = false,
  children,
  ...attributes
}: Omit<ComponentPropsWithoutRef<"dialog">, "onClose" | "onCancel" | "open"> & { onClose?: () => void; backdropCloses?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  // The latest onClose, read by the native handlers; `closed` makes sure it runs once.
  const close = useRef(onClose);
  close.current = onClose;
  const closed = useRef(false);
  const dismiss = () => {
    if (closed.current || !close.current) return false;
    closed.current = true;
    close.current();
    return true;
  };
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    closed.current = false;
    if (!dialog.open) dialog.showModal();
    dialog.querySelector<HTMLElement>("[data-autofocus]")?.focus({ preventScroll: true });
    return () => {
      closed.current = true;
      if (dialog.isConnected && dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus({ preventScroll: true });
    };
  }, []);
  return (
    <dialog
      ref={ref}
      aria-modal="true"
      {...attributes}
      onClick={(e) => {
        attributes.onClick?.(e);
        // A click on ::backdrop reaches the dialog itself, outside its box (a click on its own padding lands inside).
        if (!backdropCloses || e.target !== e.currentTarget) return;
        const box = e.currentTarget.getBoundingClientRect();
        if (e.clientX < box.left || e.clientX > box.right || e.clientY < box.top || e.clientY > box.bottom) dismiss();
      }}
      onCancel={(e) => {
        // Escape: the caller closes it (by no longer rendering it), or nobody does.
        e.preventDefault();
        dismiss();
      }}
      onClose={() => {
        // Closed by the browser itself (a second Escape may not be cancellable): dismissed, or opened again.
        if (closed.current) return;
        if (!dismiss()) ref.current?.showModal();
      }}
    >
      {children}
    </dialog>
  );
}

/** A titled alert dialog (confirm, the 401 hint) on `Modal`. */
export function Dialog({ title, children, onClose }: { title: string; children: ReactNode; onClose?: () => void }) {
  const titleId = useId();
  return (
    <Modal className="dialog" role="alertdialog" aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId} className="dialog-title">
        {title}
      </h2>
      {children}
    </Modal>
  );
}

/**
 * A toast sits in the top layer as a manual popover (no focus change, no light dismiss), shown again
 * with each new text: an open modal is in the top layer too, above every z-index, and only what is
 * shown after it is drawn above it (the order sheet's own toasts would hide under the sheet). The
 * loading mask stays an ordinary layer: the slow-navigation view must cover it, and a modal's
 * buttons say they are busy themselves.
 */
function Toast({ text }: { text: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const toast = ref.current;
    if (!toast || typeof toast.showPopover !== "function") return;
    toast.popover = "manual";
    if (toast.matches(":popover-open")) toast.hidePopover();
    toast.showPopover();
  }, [text]);
  return (
    <div ref={ref} className="toast" role="status" aria-live="polite">
      {text}
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
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const busyNow = useRef(false);
  // Checked after every commit, not keyed on `busy` (decision 164): a render React bails out of
  // keeps its hooks but drops its effects, and a keyed effect then left the mask up on an idle
  // page. The mask shows only if the page is still busy when the delay ends.
  useEffect(() => {
    busyNow.current = busy;
    if (busy) {
      timer.current ??= setTimeout(() => {
        timer.current = null;
        if (busyNow.current) setVisible(true);
      }, LOADING_MASK_DELAY_MS);
      return;
    }
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
    if (visible) setVisible(false);
  });
  useEffect(() => () => clearTimeout(timer.current ?? undefined), []);
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
