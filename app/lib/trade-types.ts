/** What the markets and trade screens read from the API: the answer types come from worker/api/resources/trades.ts. */
import type { DurationOut, OrderOut, ProductOut } from "../../worker/api/resources/trades";

export type Direction = "up" | "down";
export type OrderStatus = "open" | "won" | "lost" | "tie" | "void";
export type Interval = "1m" | "5m" | "15m" | "1h";

export const INTERVALS: readonly Interval[] = ["1m", "5m", "15m", "1h"];
export const INTERVAL_MS: Record<Interval, number> = { "1m": 60_000, "5m": 300_000, "15m": 900_000, "1h": 3_600_000 };

export type Duration = DurationOut;
export type Product = ProductOut;
export type Order = OrderOut;
export type AuditTick = OrderOut["ticks"][number];

export type OrderPage = { items: Order[]; total: number; server_time: number };
