import { useEffect, useRef } from "react";
import { useBackgroundRevalidate } from "./revalidate";

/**
 * Keeps the signed-in user's pages live: a reconnecting WebSocket to their channel
 * (`/ws/user`, opened by app/lib/user-channel-socket.ts). When the balance changes, the page
 * reloads its data from the API, so what is shown always comes from the ledger. Also tracks the
 * server clock offset for countdowns (app/lib/user-channel-state.ts). The socket code
 * (partysocket and the protocol's checks) loads only once someone is signed in: the sign-in and
 * other public pages never download it.
 */
export function useUserChannel(signedIn: boolean) {
  const reload = useBackgroundRevalidate();
  const revalidate = useRef(reload);
  revalidate.current = reload;
  useEffect(() => {
    if (!signedIn) return;
    let close: (() => void) | null = null;
    let left = false;
    void import("./user-channel-socket").then(({ openUserChannel }) => {
      // A socket closing after the page left it (signed out: the server's close may come late)
      // reloads nothing: the page it belonged to is gone.
      if (!left) close = openUserChannel(() => !left && revalidate.current());
    });
    return () => {
      left = true;
      close?.();
    };
  }, [signedIn]);
}
