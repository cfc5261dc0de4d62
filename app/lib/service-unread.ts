import { useSyncExternalStore } from "react";

/**
 * The customer-service unread count behind the me tab's badge: null until the first answer
 * from the API, then kept live by the user channel (`{type:"service", unread}`) and set to 0
 * when the user reads the conversation. One value for the whole page, shared by every tab bar.
 */
let unread: number | null = null;
const listeners = new Set<() => void>();

export function setServiceUnread(n: number) {
  if (unread === n) return;
  unread = n;
  for (const listener of listeners) listener();
}

export function useServiceUnread(): number | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => unread,
    () => null,
  );
}
