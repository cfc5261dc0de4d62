/** What the markets and trade screens read from the API (mirrors worker/api/resources/trades.ts). */
export type Direction = "up" | "down";
export type OrderStatus = "open" | "won" | "lost" | "tie" | "void";
export type Interval = "1m" | "5m" | "15m" | "1h";

export const INTERVALS: readonly Interval[] = ["1m", "5m", "15m", "1h"];
export const INTERVAL_MS: Record<Interval, number> = { "1m": 60_000, "5m": 300_000, "15m": 900_000, "1h": 3_600_000 };

export type Duration = {
  seconds: number;
  profit_rate: number;
  profit_rate_bp: number;
  min_amount: string;
  max_amount: string;
  min_amount_micro: number;
  max_amount_micro: number;
};

export type Product = {
  id: number;
  symbol: string;
  name: string;
  /** Exact decimal strings (null before the feed has a price). */
  price: string | null;
  change_pct: string | null;
  open: string | null;
  high: string | null;
  low: string | null;
  volume: string | null;
  quote_ts: number | null;
  simulated: boolean;
  fee_rate: number;
  fee_rate_bp: number;
  quote_tolerance_bp: number;
  trading_hours: string;
  durations: Duration[];
};

export type AuditTick = { ts: number; price: string; role: "entry" | "settlement" | "context"; used: boolean };

export type Order = {
  id: number;
  product_id: number;
  symbol: string;
  direction: Direction;
  amount: string;
  amount_micro: number;
  fee: string;
  fee_micro: number;
  seconds: number;
  profit_rate: number;
  profit_rate_bp: number;
  expected_income: string;
  quote_price: string;
  entry_price: string;
  entry_ts: number;
  settlement_price: string | null;
  settlement_ts: number | null;
  payout: string | null;
  profit: string | null;
  profit_micro: number | null;
  status: OrderStatus;
  void_reason: string | null;
  created_at: number;
  delivery_at: number;
  settled_at: number | null;
  ticks: AuditTick[];
};

export type OrderPage = { items: Order[]; total: number; server_time: number };
