import type { ServerMessage } from "../protocol";
/**
 * What the Worker may ask a QuoteHub (its RPC surface), apart from the class that serves it:
 * `worker/env.ts` types the QUOTE_HUB binding with this, so the binding never imports the
 * Durable Object (which imports Env) and the arrows run one way.
 */
import type { Exposure } from "../../worker/domain/trades/exposure";
import type { PlaceOrder, PlaceResult } from "../../worker/domain/trades/order-check";
import type { Tick } from "../../worker/domain/trades/settlement";
import type { Candle, QuoteBlock } from "./candles";

/** The product as its hub needs it to run the feed (the rules are read from D1). */
export type HubConfig = { symbol: string; feed_symbol: string; start_price_e8: number; tick_size_e8: number };

export type HubStats = { peak_queries: number; order_groups: number; orders_grouped: number; order_write_ms: number };

/**
 * A hub's feed and load as readiness and the console's operations page read them: the latest
 * tick's time (an exchange feed's as delivered; the simulation's as an order would get it), the open quote sockets against
 * the cap, and the order groups written since this instance started.
 */
export type HubHealth = {
  feed: "exchange" | "simulation" | "none";
  latest_tick_ms: number | null;
  sockets: number;
  socket_cap: number;
  order_groups: number;
  orders_grouped: number;
  order_write_ms: number;
};

export type PlaceAsResult = { status: "unauthorized" } | { status: "too_fast"; retry_after_ms: number } | { status: "placed"; user_id: number; result: PlaceResult };

export type HubQuote = QuoteBlock & { simulated: boolean };

export type ExposureSnapshot = { ts_ms: number; up_payout_micro: number; down_payout_micro: number; worst_case_micro: number };

export type ExposureView = { up: Exposure["up"]; down: Exposure["down"]; worst_case_micro: number; limit_micro: number; history: ExposureSnapshot[] };

/** A quote relay has no RPC surface: its pages' sockets come through fetch (quote-relay.ts). */
export type QuoteRelayApi = Rpc.DurableObjectBranded;

export interface QuoteHubApi extends Rpc.DurableObjectBranded {
  /** Remembers the product and starts the beat. */
  ensure(config: HubConfig): Promise<void>;
  /** A console save changed the product: take its rules (and feed settings) from D1 now. */
  reload(config: HubConfig): Promise<void>;
  /** Places an order at the latest tick, checked against the product's rules and exposure limit. */
  place(config: HubConfig, input: PlaceOrder): Promise<PlaceResult>;
  /**
   * Places an order for the session whose token hashes to `token_hash`, resolved from the hub's
   * memory of sessions (decision 106): the order's path reads nothing from D1. Limited per
   * session and per `network` (decision 124): past the rate, nothing is read or written.
   * `request_id` is the API request's: the hub's lines of this order carry it.
   */
  placeAs(config: HubConfig, token_hash: string, input: Omit<PlaceOrder, "user_id">, network?: string | null, request_id?: string): Promise<PlaceAsResult>;
  /** A session ended (write-through): the next order under it reads D1 and is refused. */
  forgetSessions(which: { token_hash?: string; user_id?: number }): Promise<void>;
  latest(): Promise<Tick | null>;
  quote(): Promise<HubQuote | null>;
  /** The quote block a page hears on connect (a relay greets its pages with it). */
  greeting(): Promise<ServerMessage | null>;
  /** Candles of `interval_ms` (60 000, 300 000, 900 000, 3 600 000), oldest first. */
  candles(interval_ms: number, limit: number): Promise<Candle[]>;
  ticks(from_ms: number, to_ms: number): Promise<Tick[]>;
  /** The scheduled sweep's way in: settle what is due now. */
  settleDue(): Promise<{ settled: number; already: number }>;
  /** The open exposure, the operator's limit, and the snapshots since `since_ms`. */
  exposure(since_ms: number): Promise<ExposureView>;
  /** For the benches: the most D1 queries one invocation of this isolate made, and the order groups written. */
  stats(): Promise<HubStats>;
  /** The feed's latest tick and the hub's load (readiness, the operations page). */
  health(): Promise<HubHealth>;
}
