import type { Context } from "hono";
import { ApiError } from "./envelope";
import type { AppEnv } from "./types";

/**
 * The client's idempotency key for a money-moving request: the `Idempotency-Key` header, or a
 * `request_key` / `client_order_id` field. Same key and same body → one effect and the same
 * answer; same key, other body → `idempotency_conflict`. Without a key the request still
 * runs once, but a retry would be a new request (pages always send one).
 */
export function idempotencyKey(c: Context<AppEnv>): string {
  const input = c.get("input");
  const raw = c.req.header("idempotency-key") ?? input.request_key ?? input.client_order_id;
  if (raw === undefined || raw === null || raw === "") return `auto:${crypto.randomUUID()}`;
  const key = String(raw).trim();
  if (!/^[A-Za-z0-9_.:-]{8,100}$/.test(key)) throw new ApiError("errors.idempotency_key_invalid", 400);
  return `client:${key}`;
}

/** Runs work after the answer when the platform allows it (waitUntil), inline otherwise. */
export async function afterResponse(c: Context<AppEnv>, work: Promise<unknown>) {
  try {
    c.executionCtx.waitUntil(work);
  } catch {
    await work;
  }
}
