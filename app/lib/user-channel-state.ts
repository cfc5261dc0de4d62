import type { ClientMessage } from "../../durable-objects/protocol";

/**
 * What the pages share about the user's channel, without loading its socket code: the server
 * clock's offset (countdowns) and how to speak on the channel while it is open.
 */
export const serverClock = { offset_ms: 0 };

/** How this page speaks on its open channel (set by the socket module while it is open). */
export const userChannel: { send: ((message: ClientMessage) => void) | null } = { send: null };

/** This page changed the user's money: the user's other open pages reload their balance. */
export function announceChange(reason: "trade") {
  userChannel.send?.({ type: "changed", reason });
}
