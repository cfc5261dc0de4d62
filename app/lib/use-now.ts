import { useEffect, useState } from "react";
import { serverClock } from "./user-channel-state";

/**
 * The current time, re-rendering every `every_ms` (null until mounted, so the server render
 * and hydration agree). Countdowns run on the server's clock: the user channel's offset once
 * its hello has arrived, else the offset measured from the last answer's `server_time`.
 */
export function useNow(every_ms = 1000): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const id = setInterval(() => setNow(Date.now()), every_ms);
    return () => clearInterval(id);
  }, [every_ms]);
  return now;
}

/** Offset (ms) to add to Date.now() to get the server's time. */
export function useServerOffset(server_time: number | undefined): number {
  const [fromAnswer, setFromAnswer] = useState(0);
  useEffect(() => {
    if (server_time) setFromAnswer(server_time - Date.now());
  }, [server_time]);
  // The channel's hello is measured on a live socket; an answer rendered on the server may be
  // seconds old by the time the page hydrates.
  return serverClock.offset_ms !== 0 ? serverClock.offset_ms : fromAnswer;
}
