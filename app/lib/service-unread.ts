import { useSyncExternalStore } from "react";

/**
 * The customer-service unread count behind the me tab's badge: null until the first answer
 * from the API, then kept live by the user channel (`{type:"service", unread}`) and set to 0
 * when the user reads the conversation. One value for the whole page, shared by every tab bar.
 *
 * `generation` counts the user channel's (re)connections: a message written while no socket
 * was listening is only found by asking again, so the badge asks once per connection.
 * `live` counts the counts that arrived live (or from reading): an answer to a question asked
 * before one of them is older than what the badge shows, and is dropped.
 */
type State = { unread: number | null; generation: number; live: number };
let state: State = { unread: null, generation: 0, live: 0 };
const listeners = new Set<() => void>();

function update(next: State) {
  state = next;
  for (const listener of listeners) listener();
}

/** A count from the user channel, or 0 because the user just read the conversation. */
export function setServiceUnread(n: number) {
  update({ ...state, unread: n, live: state.live + 1 });
}

/** The live mark to give `askedServiceUnread` when asking the API. */
export function serviceUnreadMark(): number {
  return state.live;
}

/** The API's answer to a question asked at `mark`: kept only if nothing newer came meanwhile. */
export function askedServiceUnread(n: number, mark: number) {
  if (state.live === mark && state.unread !== n) update({ ...state, unread: n });
}

/** The user channel said hello: whatever happened before it listened must be asked for. */
export function serviceChannelConnected() {
  update({ ...state, generation: state.generation + 1 });
}

/** What the badge shows now (the hook's snapshot). */
export function readServiceUnread(): State {
  return state;
}

export function useServiceUnread(): State {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    readServiceUnread,
    () => SERVER_STATE,
  );
}
const SERVER_STATE: State = { unread: null, generation: 0, live: 0 };
