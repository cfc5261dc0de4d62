import { useSyncExternalStore } from "react";

/**
 * The notification centre's unread counts, shared by the me tab's badge, the bell on the me
 * page and the centre itself: null until the first answer, then kept live by the user channel
 * (`{type:"notice", unread, badge}`). A notice without counts (a settlement) only says "ask
 * again": `asks` goes up and the badge asks the API. `live` counts the counts that arrived live:
 * an answer to a question asked before one of them is older than what is shown, and is dropped.
 * `badge` is what the me tab adds to the chat's own unread count (all but operator replies).
 */
export type NoticeCounts = { unread: number; badge: number };
type State = { counts: NoticeCounts | null; asks: number; live: number; changes: number };
let state: State = { counts: null, asks: 0, live: 0, changes: 0 };
const listeners = new Set<() => void>();

function update(next: State) {
  state = next;
  for (const listener of listeners) listener();
}

/**
 * Counts from the user channel (`from_channel`: something changed elsewhere, and an open centre
 * reloads its list: `changes`) or from the centre's own answer (it listed or read them).
 */
export function setNoticeCounts(counts: NoticeCounts, from_channel = true) {
  update({ ...state, counts, live: state.live + 1, changes: state.changes + (from_channel ? 1 : 0) });
}

/** Something changed but the message did not say the counts (or the channel reconnected): ask, and an open centre reloads. */
export function askNoticeCounts() {
  update({ ...state, asks: state.asks + 1, changes: state.changes + 1 });
}

export function noticeCountsMark(): number {
  return state.live;
}

/** The API's answer to a question asked at `mark`: kept only if nothing newer came meanwhile. */
export function askedNoticeCounts(counts: NoticeCounts, mark: number) {
  if (state.live === mark) update({ ...state, counts });
}

export function useNoticeCounts(): State {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => state,
    () => SERVER_STATE,
  );
}
const SERVER_STATE: State = { counts: null, asks: 0, live: 0, changes: 0 };
