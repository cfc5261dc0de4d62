import { useRevalidator } from "@remix-run/react";
import { useEffect, useRef } from "react";

/**
 * Keeps the signed-in user's pages live: a reconnecting WebSocket to their channel
 * (`/ws/user`, opened by app/lib/user-channel-socket.ts). When the balance changes, the page
 * reloads its data from the API, so what is shown always comes from the ledger. Also tracks the
 * server clock offset for countdowns (app/lib/user-channel-state.ts). The socket code
 * (partysocket and the protocol's checks) loads only once someone is signed in: the sign-in and
 * other public pages never download it.
 */
export function useUserChannel(signedIn: boolean) {
  const revalidator = useRevalidator();
  const revalidate = useRef(revalidator.revalidate);
  revalidate.current = revalidator.revalidate;
  useEffect(() => {
    if (!signedIn) return;
    let close: (() => void) | null = null;
    let left = false;
    void import("./user-channel-socket").then(({ openUserChannel }) => {
      if (!left) close = openUserChannel(() => revalidate.current());
    });
    return () => {
      left = true;
      close?.();
    };
  }, [signedIn]);
}
