import type { MiddlewareHandler } from "hono";
import { ApiError } from "../envelope";
import type { AppEnv } from "../types";
import { readBounded } from "../../body";

/** Bodies larger than this are refused before they are read in full. Uploads set their own. */
export const MAX_BODY_BYTES = 64 * 1024;
const MAX_DEPTH = 8;
const MAX_KEYS = 200;

/**
 * Reads the request's fields once, whatever the encoding (JSON, urlencoded, multipart), and
 * merges them over the query string into `c.var.input`. Malformed, oversized or deeply nested
 * bodies become a 4xx envelope, never an exception that reaches a handler.
 */
export type BodyLimit = { bytes: number; too_large_key: string };
const DEFAULT_LIMIT: BodyLimit = { bytes: MAX_BODY_BYTES, too_large_key: "errors.payload_too_large" };

/** The query of a URL, parsed only when it has one (no URL object per request). */
export function searchOf(url: string): URLSearchParams {
  const at = url.indexOf("?");
  if (at < 0) return NO_QUERY;
  const end = url.indexOf("#", at);
  return new URLSearchParams(url.slice(at + 1, end < 0 ? undefined : end));
}
const NO_QUERY = new URLSearchParams();

export function readInput(limitFor: (path: string) => BodyLimit | null = () => null): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const limit = limitFor(c.req.path) ?? DEFAULT_LIMIT;
    const query: Record<string, unknown> = {};
    for (const [k, v] of searchOf(c.req.url)) query[k] = v;
    let body: Record<string, unknown> = {};
    // readBounded answers an absent body with no bytes (touching `body` would make it a stream).
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      body = await readBody(c.req.raw, limit);
    }
    c.set("input", { ...query, ...body });
    await next();
  };
}

async function readBody(req: Request, limit: BodyLimit): Promise<Record<string, unknown>> {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const bytes = await readLimited(req, limit);
  if (type === "multipart/form-data") {
    // Parsed from the bytes already read, so the size limit holds with or without a
    // content-length header (chunked uploads cannot get around it).
    let form: FormData;
    try {
      form = await new Response(bytes as unknown as BodyInit, { headers: { "content-type": req.headers.get("content-type")! } }).formData();
    } catch {
      throw new ApiError("errors.malformed", 400);
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of form) out[k] = v;
    if (Object.keys(out).length > MAX_KEYS) throw new ApiError("errors.malformed", 400);
    return out;
  }
  const raw = decodeUtf8(bytes);
  if (raw.trim() === "") return {};
  if (type === "application/json" || type.endsWith("+json")) return parseJsonObject(raw);
  if (type === "application/x-www-form-urlencoded") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of new URLSearchParams(raw)) out[k] = v;
    if (Object.keys(out).length > MAX_KEYS) throw new ApiError("errors.malformed", 400);
    return out;
  }
  if (type === "" || type === "text/plain") {
    // Tolerate clients that forget the header but send JSON.
    return parseJsonObject(raw);
  }
  throw new ApiError("errors.unsupported_media", 415);
}

async function readLimited(req: Request, limit: BodyLimit): Promise<Uint8Array> {
  const bytes = await readBounded(req, limit.bytes);
  if (bytes === null) throw new ApiError(limit.too_large_key, 413);
  return bytes;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new ApiError("errors.malformed", 400);
  }
}

export function parseJsonObject(raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ApiError("errors.malformed", 400);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ApiError("errors.malformed", 400);
  if (!withinShape(value, 0, { keys: 0 })) throw new ApiError("errors.malformed", 400);
  return value as Record<string, unknown>;
}

function withinShape(value: unknown, depth: number, seen: { keys: number }): boolean {
  if (typeof value !== "object" || value === null) return true;
  if (depth >= MAX_DEPTH) return false;
  const entries = Array.isArray(value) ? value : Object.values(value);
  seen.keys += entries.length;
  if (seen.keys > MAX_KEYS * 10) return false;
  return entries.every((v) => withinShape(v, depth + 1, seen));
}
