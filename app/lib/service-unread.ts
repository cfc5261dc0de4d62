import { useSyncExternalStore } from "react";

/**
 * The customer-service unread count behind the me tab's badge: null until the first answer
 * from the API, then kept live by the user channel (`{type:"service", unread}`) and set to 0
 * when the user reads the conversation. One value for the whole page, shared by every tab bar.
 *
 * `generation` counts the user channel's (re)connections: a message written while no socket
 * was listening is only found by asking again, so the badge asks once per connection.
 */
type State = { unread: number | null; generation: number };
let state: State = { unread: null, generation: 0 };
const listeners = new Set<() => void>();

function update(next: State) {
  state = next;
  for (const listener of listeners) listener();
}

export function setServiceUnread(n: number) {
  if (state.unread !== n) update({ ...state, unread: n });
}

/** The user channel said hello: whatever happened before it listened must be asked for. */
export function serviceChannelConnected() {
  update({ ...state, generation: state.generation + 1 });
}

export function useServiceUnread(): State {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => state,
    () => SERVER_STATE,
  );
}
const SERVER_STATE: State = { unread: null, generation: 0 };
