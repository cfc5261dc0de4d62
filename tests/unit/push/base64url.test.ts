import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { base64urlnopad } from "@scure/base";
import { describe, expect, it } from "vitest";
import { keyBytes } from "../../../worker/push/ece";

/**
 * base64url comes from @scure/base alone (push keys, VAPID JWTs, session tokens, passkeys): the
 * hand-written codec that sat beside it is gone, and the text it wrote is unchanged.
 */
const utf8 = (s: string) => new TextEncoder().encode(s);

/** RFC 4648 §10 vectors, in the URL alphabet without padding, as the old codec wrote them. */
const RFC4648 = [
  ["", ""],
  ["f", "Zg"],
  ["fo", "Zm8"],
  ["foo", "Zm9v"],
  ["foob", "Zm9vYg"],
  ["fooba", "Zm9vYmE"],
  ["foobar", "Zm9vYmFy"],
] as const;

describe("base64url (@scure/base)", () => {
  it("writes what the old codec wrote: no padding, '-' and '_' for '+' and '/'", () => {
    for (const [plain, encoded] of RFC4648) expect(base64urlnopad.encode(utf8(plain))).toBe(encoded);
    expect(base64urlnopad.encode(Uint8Array.of(0xfb, 0xff, 0xbf))).toBe("-_-_");
    expect(base64urlnopad.encode(Uint8Array.of(0xfb, 0xff))).toBe("-_8");
  });

  it("push and JWK keys read back to the same bytes", () => {
    for (const [plain, encoded] of RFC4648) expect(keyBytes(encoded)).toEqual(utf8(plain));
    expect(keyBytes("-_8")).toEqual(Uint8Array.of(0xfb, 0xff));
  });

  it("a key with padding, the standard alphabet or stray trailing bits is not a key", () => {
    // Padding and '+' '/' were refused before too; stray bits ("Zh" for "Zg") were read leniently.
    for (const bad of ["Zg==", "Zm8=", "+/8", "Zh", "Zm9", "Z", "not base64!"]) expect(keyBytes(bad), bad).toBeNull();
  });
});

/** Source files of the Worker, the objects and the pages. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
}

/**
 * Where btoa/atob may still appear, and why: the transparency verifier imports nothing of ours
 * and no codec (anyone can read it whole), and the signature pad's PNG comes as a data: URL.
 */
const STANDARD_BASE64_BY_HAND = ["worker/domain/transparency/verify.ts", "app/components/profile/signature-field.tsx"];

describe("one codec", () => {
  it("no other file writes base64 by hand with btoa/atob", () => {
    const root = new URL("../../../", import.meta.url).pathname;
    const offenders = ["worker", "durable-objects", "app"]
      .flatMap((d) => sources(join(root, d)))
      .map((f) => f.slice(root.length))
      .filter((f) => !STANDARD_BASE64_BY_HAND.includes(f) && /\b(?:btoa|atob)\(/.test(readFileSync(join(root, f), "utf8")));
    expect(offenders).toEqual([]);
  });
});
