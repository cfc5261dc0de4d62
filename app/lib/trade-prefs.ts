/**
 * The product's persisted trade settings: `productIndex` (the selected product on
 * the trade tab), `productType` (the chart interval) and `orderTabIndexActive` (0 positions,
 * 1 history), kept in localStorage under those names. Reads never throw (private mode, quota).
 */
import { INTERVALS, type Interval } from "./trade-types";

function read(name: string): string | null {
  try {
    const raw = window.localStorage.getItem(name);
    if (raw === null) return null;
    // Other clients of the same storage may have written JSON ("\"5m\"", "1").
    try {
      const parsed: unknown = JSON.parse(raw);
      return typeof parsed === "string" || typeof parsed === "number" ? String(parsed) : raw;
    } catch {
      return raw;
    }
  } catch {
    return null;
  }
}

function write(name: string, value: string | number) {
  try {
    window.localStorage.setItem(name, String(value));
  } catch {
    // storage unavailable: the choice just is not remembered
  }
}

export function readIndex(name: "productIndex" | "orderTabIndexActive", count: number): number {
  const raw = read(name);
  const n = raw !== null && /^\d+$/.test(raw) ? Number(raw) : 0;
  return n < count ? n : 0;
}

export function writeIndex(name: "productIndex" | "orderTabIndexActive", value: number) {
  write(name, value);
}

export function readInterval(): Interval {
  const raw = read("productType");
  return INTERVALS.includes(raw as Interval) ? (raw as Interval) : "1m";
}

export function writeInterval(value: Interval) {
  write("productType", value);
}
