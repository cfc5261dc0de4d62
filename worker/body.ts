/**
 * Reading a request body with a ceiling: the bytes are counted as they arrive and the read stops
 * past `max_bytes`, whether or not a content-length was declared (a chunked body cannot get
 * around it). The API's input reader and the page requests both read through here.
 */
import { concatBytes } from "@noble/hashes/utils.js";

/** The body's bytes, or null when it is larger than `max_bytes` (then it is not read further). */
export async function readBounded(request: Request, max_bytes: number): Promise<Uint8Array<ArrayBuffer> | null> {
  if (Number(request.headers.get("content-length") ?? "0") > max_bytes) return null;
  // A declared length within the ceiling is what the body holds (the runtime holds the body to
  // it): one read, without making the body a stream (which costs more than a small request).
  if (request.headers.get("content-length") !== null && request.headers.get("transfer-encoding") === null) return new Uint8Array(await request.arrayBuffer());
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max_bytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return concatBytes(...chunks);
}
