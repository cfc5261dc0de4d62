import { useFetcher, useFetchers, useNavigation, useSubmit } from "@remix-run/react";
import { useCallback, useEffect, useRef } from "react";
import { TAP_DEBOUNCE_MS } from "./client-defaults";

/**
 * Repeated taps on a submitting button (decision 142): a submit is ignored while the same
 * form's (or fetcher's) last one is in flight, and a repeat of it (the same button and the
 * same data) within 500 ms even when that one has already been answered. A different action of the
 * same form or fetcher once the first is answered ("close", then "reopen") is not a repeat. One rule (`TapGate`), three doors: every `<form>` submit event of the
 * app (`useFormTapGuard`, installed once by UiProvider), every `fetcher.submit` a button
 * calls (`useGuardedFetcher`) and every navigation `submit` (`useGuardedSubmit`).
 */
export type TapDecision = "accept" | "too_soon" | "in_flight";
export type TapState = { accepted_at_ms: number | null; accepted_key: string | null; in_flight: boolean };

/**
 * Whether a tap at `now_ms` submitting `key` (what it sends: see `submissionKey`) may go
 * ahead. A clock that went back never locks the button.
 */
export function tapDecision(state: TapState, now_ms: number, key = "", debounce_ms = TAP_DEBOUNCE_MS): TapDecision {
  if (state.in_flight) return "in_flight";
  if (state.accepted_key !== key) return "accept";
  const since_ms = state.accepted_at_ms === null ? Infinity : now_ms - state.accepted_at_ms;
  if (since_ms >= 0 && since_ms < debounce_ms) return "too_soon";
  return "accept";
}

/** One submitter's gate: a tap that goes through closes it until its submit has `settled`. */
export class TapGate {
  private state: TapState = { accepted_at_ms: null, accepted_key: null, in_flight: false };
  constructor(private readonly debounce_ms = TAP_DEBOUNCE_MS) {}

  tap(now_ms: number, key = ""): TapDecision {
    const decision = tapDecision(this.state, now_ms, key, this.debounce_ms);
    if (decision === "accept") this.state = { accepted_at_ms: now_ms, accepted_key: key, in_flight: true };
    return decision;
  }

  /** The submit is answered (or never started): only the window of the last tap still holds. */
  settled(): void {
    this.state = { ...this.state, in_flight: false };
  }
}

/** What a code-made submission sends, as a key: the same key again is a repeat. */
export function submissionKey(target: unknown, action?: string): string {
  let entries: [string, unknown][] = [];
  if (target instanceof FormData || target instanceof URLSearchParams) {
    entries = [...target.entries()].map(([k, v]) => [k, typeof v === "string" ? v : `file:${v.name}:${v.size}`]);
  } else if (target && typeof target === "object" && !(typeof HTMLElement !== "undefined" && target instanceof HTMLElement)) {
    entries = Object.entries(target);
  }
  return JSON.stringify([action ?? "", entries]);
}

/**
 * A form's submission as a key: the button that submitted it and what the user entered (hidden
 * fields left out: a page may renew its own, such as a fresh request key after an answer).
 * Another button, or the same form filled anew (a code typed after the password was right), is
 * another submission; the same tap again is a repeat.
 */
function formSubmissionKey(form: HTMLFormElement, event: Event): string {
  const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | HTMLInputElement | null;
  const button = submitter ? `${Array.prototype.indexOf.call(form.elements, submitter)}:${submitter.name}=${submitter.value}` : "";
  const entered: [string, string][] = [];
  for (const field of Array.from(form.elements)) {
    if (!(field instanceof HTMLInputElement || field instanceof HTMLSelectElement || field instanceof HTMLTextAreaElement)) continue;
    if (!field.name || field.disabled || field.type === "hidden" || field.type === "submit" || field.type === "button") continue;
    if (field instanceof HTMLInputElement && (field.type === "checkbox" || field.type === "radio") && !field.checked) continue;
    const value = field instanceof HTMLInputElement && field.type === "file" ? Array.from(field.files ?? [], (f) => `${f.name}:${f.size}`).join(",") : field.value;
    entered.push([field.name, value]);
  }
  return JSON.stringify([button, entered]);
}

/**
 * Settles `gate` once `busy` (its submit in flight) is over. A submit the page stopped itself
 * (a missing field) never makes anything busy: it settles when the window ends.
 */
function useSettling(busy: boolean) {
  const busyNow = useRef(busy);
  busyNow.current = busy;
  const open = useRef(new Set<TapGate>());
  useEffect(() => {
    if (busy) return;
    for (const gate of open.current) gate.settled();
    open.current.clear();
  }, [busy]);
  return useCallback((gate: TapGate) => {
    open.current.add(gate);
    setTimeout(() => {
      if (busyNow.current) return;
      gate.settled();
      open.current.delete(gate);
    }, TAP_DEBOUNCE_MS);
  }, []);
}

/**
 * Whether a submission of the app is in flight: a navigation or a fetcher posting. The loads
 * that follow an answer (revalidation) and a fetcher's own loads are not submissions.
 */
function useSubmitting(): boolean {
  const navigation = useNavigation();
  const fetchers = useFetchers();
  return navigation.state === "submitting" || fetchers.some((f) => f.state === "submitting");
}

/**
 * Every form of the app, one listener: a submit event caught on the window before React or
 * Remix see it, and dropped when its form's gate is closed. A form opts out with
 * `data-tap-guard="off"` (only the chat box: it clears itself, so a second tap sends nothing).
 */
export function useFormTapGuard() {
  const watch = useSettling(useSubmitting());
  useEffect(() => {
    const gates = new WeakMap<HTMLFormElement, TapGate>();
    const onSubmit = (event: Event) => {
      const form = event.target;
      if (!(form instanceof HTMLFormElement) || form.dataset.tapGuard === "off") return;
      const gate = gates.get(form) ?? new TapGate();
      gates.set(form, gate);
      if (gate.tap(Date.now(), formSubmissionKey(form, event)) === "accept") return watch(gate);
      event.preventDefault();
      event.stopImmediatePropagation();
    };
    window.addEventListener("submit", onSubmit, true);
    return () => window.removeEventListener("submit", onSubmit, true);
  }, [watch]);
}

/**
 * `useFetcher` whose `submit` follows the tap rule: for buttons that submit by code (a
 * confirm first, a payload built from state). Its own `Form` is covered by `useFormTapGuard`.
 */
export function useGuardedFetcher<T = unknown>(opts?: Parameters<typeof useFetcher>[0]) {
  const fetcher = useFetcher<T>(opts);
  const gate = useRef(new TapGate());
  const watch = useSettling(fetcher.state === "submitting");
  const { submit } = fetcher;
  const guarded = useCallback(
    (...args: Parameters<typeof submit>) => {
      // A repeated tap: nothing is sent.
      if (gate.current.tap(Date.now(), submissionKey(args[0], args[1]?.action)) !== "accept") return;
      watch(gate.current);
      return submit(...args);
    },
    [submit, watch],
  );
  return { ...fetcher, submit: guarded };
}

/** `useSubmit` (a navigation that posts) under the tap rule; in flight while the navigation runs. */
export function useGuardedSubmit() {
  const submit = useSubmit();
  const gate = useRef(new TapGate());
  const watch = useSettling(useNavigation().state === "submitting");
  return useCallback(
    (...args: Parameters<typeof submit>) => {
      // A repeated tap: nothing is sent.
      if (gate.current.tap(Date.now(), submissionKey(args[0], args[1]?.action)) !== "accept") return;
      watch(gate.current);
      return submit(...args);
    },
    [submit, watch],
  );
}
