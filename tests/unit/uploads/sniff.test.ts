import { readdirSync, readFileSync } from "node:fs";
import { concatBytes as concat } from "@noble/hashes/utils.js";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_UPLOAD_BYTES, sniffImage, type SniffResult } from "../../../worker/domain/uploads/sniff";

const dir = join(__dirname, "../../fixtures/uploads");
const fixture = (name: string) => new Uint8Array(readFileSync(join(dir, name)));

type Expected =
  | { status: "ok"; type: "image/jpeg" | "image/png" | "image/webp"; width: number; height: number }
  | { status: "empty" | "too_large" | "not_an_image" | "malformed" };

const jpeg = (width = 32, height = 24): Expected => ({ status: "ok", type: "image/jpeg", width, height });
const png = (width = 32, height = 24): Expected => ({ status: "ok", type: "image/png", width, height });
const webp = (width = 32, height = 24): Expected => ({ status: "ok", type: "image/webp", width, height });
const NOT_AN_IMAGE: Expected = { status: "not_an_image" };
const MALFORMED: Expected = { status: "malformed" };

/** Every file in tests/fixtures/uploads (see README.md there for how each was made). */
const CORPUS: Record<string, Expected> = {
  // Valid images: accepted whatever their extension.
  "jpeg-baseline.jpg": jpeg(),
  "jpeg-progressive.jpg": jpeg(),
  "jpeg-grayscale-restart-comment.jpg": jpeg(),
  "jpeg-zero-padded.jpg": jpeg(),
  "jpeg-renamed.png": jpeg(),
  "png-rgb.png": png(),
  "png-rgba.png": png(),
  "png-palette.png": png(),
  "png-renamed.jpg": png(),
  "webp-lossy.webp": webp(),
  "webp-lossless.webp": webp(),
  "webp-vp8x-alpha.webp": webp(),
  // Other formats, including ones browsers render or execute.
  "svg-plain.svg": NOT_AN_IMAGE,
  "svg-prolog.svg": NOT_AN_IMAGE,
  "svg-script.svg": NOT_AN_IMAGE,
  "page.html": NOT_AN_IMAGE,
  "document.pdf": NOT_AN_IMAGE,
  "image.gif": NOT_AN_IMAGE,
  "gifar.gif": NOT_AN_IMAGE,
  "image.bmp": NOT_AN_IMAGE,
  "icon.ico": NOT_AN_IMAGE,
  "image.tiff": NOT_AN_IMAGE,
  "heic-ftyp.heic": NOT_AN_IMAGE,
  "sound.wav": NOT_AN_IMAGE,
  "archive.zip": NOT_AN_IMAGE,
  "notes.txt": NOT_AN_IMAGE,
  "empty.bin": { status: "empty" },
  // Image signature, broken or smuggling structure.
  "polyglot-jpeg-html.jpg": MALFORMED,
  "polyglot-png-zip.png": MALFORMED,
  "fake-jpeg-html.jpg": MALFORMED,
  "jpeg-truncated.jpg": MALFORMED,
  "jpeg-padding-too-long.jpg": MALFORMED,
  "jpeg-no-frame.jpg": MALFORMED,
  "png-truncated.png": MALFORMED,
  "png-bad-crc.png": MALFORMED,
  "png-zero-width.png": MALFORMED,
  "png-signature-only.png": MALFORMED,
  "webp-appended.webp": MALFORMED,
  "webp-riff-size-covers-payload.webp": MALFORMED,
  "webp-bad-start-code.webp": MALFORMED,
};

/** Valid fixtures, for mutation and truncation properties. */
const VALID = Object.entries(CORPUS)
  .filter(([, e]) => e.status === "ok")
  .map(([name]) => name);

function simplify(r: SniffResult): Expected {
  return r.status === "ok" ? { status: "ok", type: r.image.type, width: r.image.width, height: r.image.height } : { status: r.status };
}

function expectWellFormedResult(r: SniffResult) {
  expect(["ok", "empty", "too_large", "not_an_image", "malformed"]).toContain(r.status);
  if (r.status === "ok") {
    expect(Number.isInteger(r.image.width) && r.image.width > 0).toBe(true);
    expect(Number.isInteger(r.image.height) && r.image.height > 0).toBe(true);
    expect(r.image.ext).toBe({ "image/jpeg": "jpg", "image/png": "png", "image/webp": "webp" }[r.image.type]);
  }
}

const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const u32be = (v: number) => Uint8Array.of(v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);

/** A PNG chunk with a correct CRC (computed by Node's zlib, independent of the code under test). */
function pngChunk(type: string, data: Uint8Array = new Uint8Array(0)) {
  const body = concat(ascii(type), data);
  return concat(u32be(data.length), body, u32be(crc32(body)));
}
const PNG_SIG = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
const ihdr = (w: number, h: number, depth = 8, colour = 2) => pngChunk("IHDR", concat(u32be(w), u32be(h), Uint8Array.of(depth, colour, 0, 0, 0)));
/** IDAT contents are not decoded by the sniffer; any bytes do for structure tests. */
const someIdat = pngChunk("IDAT", Uint8Array.of(0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01));
const iend = pngChunk("IEND");

/** Insert `chunk` right before the trailing IEND (last 12 bytes) of a valid PNG. */
const beforeIend = (file: Uint8Array, chunk: Uint8Array) => concat(file.subarray(0, file.length - 12), chunk, file.subarray(file.length - 12));

describe("upload corpus", () => {
  it("covers every fixture file and at least 24 of them", () => {
    const onDisk = readdirSync(dir).filter((f) => !f.endsWith(".md") && !f.endsWith(".mjs"));
    expect(onDisk.sort()).toEqual(Object.keys(CORPUS).sort());
    expect(onDisk.length).toBeGreaterThanOrEqual(24);
  });

  it.each(Object.entries(CORPUS))("%s → %j", (name, expected) => {
    expect(simplify(sniffImage(fixture(name)))).toEqual(expected);
  });

  it("reads a Uint8Array view at a non-zero offset", () => {
    const f = fixture("png-rgba.png");
    const big = concat(ascii("junk before"), f, ascii("junk after"));
    expect(simplify(sniffImage(big.subarray(11, 11 + f.length)))).toEqual(png());
  });
});

describe("size limit", () => {
  it("accepts exactly MAX_UPLOAD_BYTES and refuses one byte more", () => {
    expect(MAX_UPLOAD_BYTES).toBe(1_048_576);
    const base = fixture("png-rgb.png");
    // Pad with a private ancillary chunk ("prVt": lowercase first letter = ancillary, so decoders skip it).
    const padTo = (total: number) => beforeIend(base, pngChunk("prVt", new Uint8Array(total - base.length - 12).fill(0x41)));
    const atLimit = padTo(MAX_UPLOAD_BYTES);
    const overLimit = padTo(MAX_UPLOAD_BYTES + 1);
    expect(atLimit.length).toBe(1_048_576);
    expect(overLimit.length).toBe(1_048_577);
    expect(simplify(sniffImage(atLimit))).toEqual(png());
    expect(sniffImage(overLimit)).toEqual({ status: "too_large" });
  });

  it("accepts a JPEG of exactly MAX_UPLOAD_BYTES (COM segments) and refuses one byte more", () => {
    const base = fixture("jpeg-baseline.jpg");
    const build = (total: number) => {
      const parts: Uint8Array[] = [base.subarray(0, 2)];
      let room = total - base.length;
      while (room > 0) {
        // A COM segment is FF FE + 2-byte length (counting itself) + payload: 4..65537 bytes.
        const seg = Math.min(room, 65537);
        const take = room - seg > 0 && room - seg < 4 ? seg - 4 : seg; // never leave a remainder < 4
        const len = take - 2;
        parts.push(Uint8Array.of(0xff, 0xfe, len >> 8, len & 0xff), new Uint8Array(len - 2).fill(0x20));
        room -= take;
      }
      parts.push(base.subarray(2));
      return concat(...parts);
    };
    expect(build(MAX_UPLOAD_BYTES).length).toBe(MAX_UPLOAD_BYTES);
    expect(simplify(sniffImage(build(MAX_UPLOAD_BYTES)))).toEqual(jpeg());
    expect(sniffImage(build(MAX_UPLOAD_BYTES + 1))).toEqual({ status: "too_large" });
  });

  it("refuses oversized input before looking at it", () => {
    expect(sniffImage(new Uint8Array(MAX_UPLOAD_BYTES + 1))).toEqual({ status: "too_large" });
    expect(sniffImage(new Uint8Array(5 * MAX_UPLOAD_BYTES).fill(0xff))).toEqual({ status: "too_large" });
  });

  it("calls a zero-length input empty", () => {
    expect(sniffImage(new Uint8Array(0))).toEqual({ status: "empty" });
  });
});

describe("JPEG structure", () => {
  const base = fixture("jpeg-baseline.jpg");

  it("allows up to 64 zero bytes after EOI, nothing else", () => {
    expect(sniffImage(concat(base, new Uint8Array(64))).status).toBe("ok");
    expect(sniffImage(concat(base, new Uint8Array(65))).status).toBe("malformed");
    expect(sniffImage(concat(base, Uint8Array.of(0x0a))).status).toBe("malformed");
    expect(sniffImage(concat(base, Uint8Array.of(0, 0, 0, 1))).status).toBe("malformed");
  });

  it("refuses a payload squeezed between EOI and a second EOI at the very end", () => {
    // A naive "ends with FF D9" check would accept this.
    expect(sniffImage(concat(base, ascii("<html><script>alert(1)</script>"), Uint8Array.of(0xff, 0xd9))).status).toBe("malformed");
    expect(sniffImage(concat(base, base)).status).toBe("malformed");
  });

  it("refuses segments whose length runs past the end of the file", () => {
    expect(sniffImage(Uint8Array.of(0xff, 0xd8, 0xff, 0xe0, 0xff, 0xff, 0x00)).status).toBe("malformed");
  });

  it("refuses a zero width or height in the frame header", () => {
    // Find SOF0 (FF C0) and zero its width: P(1) Y(2) X(2) after the 2-byte length.
    const b = base.slice();
    const sof = b.findIndex((v, i) => v === 0xff && b[i + 1] === 0xc0);
    expect(sof).toBeGreaterThan(0);
    b[sof + 7] = 0;
    b[sof + 8] = 0;
    expect(sniffImage(b).status).toBe("malformed");
  });

  it("refuses garbage bytes between segments and reserved markers", () => {
    const afterApp0 = 4 + ((base[4] << 8) | base[5]); // SOI(2) + FF E0 + length-counted payload
    expect(base[2] === 0xff && base[3] === 0xe0).toBe(true);
    expect(sniffImage(concat(base.subarray(0, afterApp0), ascii("garbage"), base.subarray(afterApp0))).status).toBe("malformed");
    expect(sniffImage(concat(base.subarray(0, 2), Uint8Array.of(0xff, 0x02, 0x00, 0x02), base.subarray(2))).status).toBe("malformed");
  });

  it("skips 0xFF fill bytes before a marker", () => {
    expect(sniffImage(concat(base.subarray(0, 2), Uint8Array.of(0xff, 0xff, 0xff), base.subarray(2))).status).toBe("ok");
  });

  it("does not confuse a JPEG embedded in an APP segment (Exif thumbnail) with the real one", () => {
    // APP1 carrying a whole JPEG (with its own SOI/SOF/EOI) must be skipped by its length.
    const app1Len = base.length + 2;
    const app1 = concat(Uint8Array.of(0xff, 0xe1, app1Len >> 8, app1Len & 0xff), base);
    expect(simplify(sniffImage(concat(base.subarray(0, 2), app1, base.subarray(2))))).toEqual(jpeg());
    // ...and a file that is *only* SOI + that APP1 has no frame of its own.
    expect(sniffImage(concat(base.subarray(0, 2), app1, Uint8Array.of(0xff, 0xd9))).status).toBe("malformed");
  });

  it("does not treat two-byte prefixes as JPEG", () => {
    expect(sniffImage(Uint8Array.of(0xff, 0xd8)).status).toBe("not_an_image");
    expect(sniffImage(Uint8Array.of(0xff, 0xd8, 0xff)).status).toBe("malformed");
  });
});

describe("PNG structure", () => {
  it("builds a minimal valid PNG by hand (sanity check for the helpers)", () => {
    expect(simplify(sniffImage(concat(PNG_SIG, ihdr(7, 5), someIdat, iend)))).toEqual(png(7, 5));
  });

  it("caps dimensions at 100000", () => {
    expect(simplify(sniffImage(concat(PNG_SIG, ihdr(100_000, 1), someIdat, iend)))).toEqual(png(100_000, 1));
    expect(sniffImage(concat(PNG_SIG, ihdr(100_001, 1), someIdat, iend)).status).toBe("malformed");
    expect(sniffImage(concat(PNG_SIG, ihdr(1, 0xffffffff), someIdat, iend)).status).toBe("malformed");
    expect(sniffImage(concat(PNG_SIG, ihdr(1, 0), someIdat, iend)).status).toBe("malformed");
  });

  it("requires IHDR first, with length 13 and a valid depth/colour combination", () => {
    expect(sniffImage(concat(PNG_SIG, someIdat, ihdr(1, 1), iend)).status).toBe("malformed");
    expect(sniffImage(concat(PNG_SIG, pngChunk("IHDR", new Uint8Array(14)), someIdat, iend)).status).toBe("malformed");
    expect(sniffImage(concat(PNG_SIG, ihdr(1, 1, 3, 2), someIdat, iend)).status).toBe("malformed");
    expect(sniffImage(concat(PNG_SIG, ihdr(1, 1, 8, 7), someIdat, iend)).status).toBe("malformed");
  });

  it("requires IDAT, and a palette for indexed colour", () => {
    expect(sniffImage(concat(PNG_SIG, ihdr(1, 1), iend)).status).toBe("malformed");
    expect(sniffImage(concat(PNG_SIG, ihdr(1, 1, 8, 3), someIdat, iend)).status).toBe("malformed");
    expect(sniffImage(concat(PNG_SIG, ihdr(1, 1, 8, 3), pngChunk("PLTE", new Uint8Array(3)), someIdat, iend)).status).toBe("ok");
  });

  it("refuses unknown critical chunks and split IDAT runs", () => {
    expect(sniffImage(concat(PNG_SIG, ihdr(1, 1), pngChunk("ZZZZ"), someIdat, iend)).status).toBe("malformed");
    expect(sniffImage(concat(PNG_SIG, ihdr(1, 1), someIdat, pngChunk("tEXt", ascii("a\0b")), someIdat, iend)).status).toBe("malformed");
    expect(sniffImage(concat(PNG_SIG, ihdr(1, 1), pngChunk("tEXt", ascii("a\0b")), someIdat, iend)).status).toBe("ok");
  });

  it("refuses anything after IEND, even zeros or a second IEND", () => {
    const base = fixture("png-rgb.png");
    expect(sniffImage(concat(base, Uint8Array.of(0))).status).toBe("malformed");
    expect(sniffImage(concat(base, iend)).status).toBe("malformed");
  });

  it("refuses a chunk length pointing past the end of the file", () => {
    const b = fixture("png-rgb.png").slice();
    b.set(u32be(0x7fffffff), 33); // the chunk after IHDR
    expect(sniffImage(b).status).toBe("malformed");
  });

  it("treats a damaged signature as a broken PNG, a foreign one as not an image", () => {
    const b = fixture("png-rgb.png").slice();
    b[4] = 0x0a; // CRLF → LF damage from text-mode transfer
    expect(sniffImage(b).status).toBe("malformed");
    expect(sniffImage(ascii("PNG but not really")).status).toBe("not_an_image");
  });
});

describe("WebP structure", () => {
  const lossy = fixture("webp-lossy.webp");

  it("requires the RIFF size to match the file length exactly", () => {
    for (const delta of [-1, 1, 2]) {
      const b = lossy.slice();
      new DataView(b.buffer).setUint32(4, lossy.length - 8 + delta, true);
      expect(sniffImage(b).status).toBe("malformed");
    }
  });

  it("refuses a second chunk in a simple (non-VP8X) file", () => {
    const extra = concat(ascii("EXIF"), Uint8Array.of(2, 0, 0, 0), Uint8Array.of(0, 0));
    const b = concat(lossy, extra);
    new DataView(b.buffer).setUint32(4, b.length - 8, true);
    expect(sniffImage(b).status).toBe("malformed");
  });

  it("allows extra chunks after a VP8X header, as the format does", () => {
    const vp8x = fixture("webp-vp8x-alpha.webp");
    const b = concat(vp8x, ascii("XMP "), Uint8Array.of(3, 0, 0, 0), ascii("abc"), Uint8Array.of(0)); // odd size + pad byte
    new DataView(b.buffer).setUint32(4, b.length - 8, true);
    expect(simplify(sniffImage(b))).toEqual(webp());
  });

  it("refuses a VP8X file without image data or with a canvas/bitstream size mismatch", () => {
    const vp8x = fixture("webp-vp8x-alpha.webp");
    const headerOnly = vp8x.slice(0, 30);
    new DataView(headerOnly.buffer).setUint32(4, headerOnly.length - 8, true);
    expect(sniffImage(headerOnly).status).toBe("malformed");
    const wrongCanvas = vp8x.slice();
    wrongCanvas[24] = 40; // canvas width-1 = 40
    expect(sniffImage(wrongCanvas).status).toBe("malformed");
  });

  it("refuses a RIFF file that is not WEBP and a bare RIFF prefix", () => {
    const b = lossy.slice();
    b.set(ascii("AVI "), 8);
    expect(sniffImage(b).status).toBe("not_an_image");
    expect(sniffImage(ascii("RIFF")).status).toBe("not_an_image");
  });
});

describe("properties", () => {
  it("never throws on arbitrary bytes, and ok results have positive integer sizes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (bytes) => {
        expectWellFormedResult(sniffImage(bytes));
      }),
      { numRuns: 5000 },
    );
  });

  it("never throws on arbitrary bytes behind each accepted signature", () => {
    const prefixes = [
      Uint8Array.of(0xff, 0xd8, 0xff),
      PNG_SIG,
      ascii("RIFF"),
    ];
    fc.assert(
      fc.property(fc.constantFrom(...prefixes), fc.uint8Array({ maxLength: 4096 }), (prefix, tail) => {
        const bytes = concat(prefix, tail);
        if (prefix[0] === 0x52 && bytes.length >= 12) {
          bytes.set(ascii("WEBP"), 8);
          new DataView(bytes.buffer).setUint32(4, bytes.length - 8, true); // get past the RIFF size check
        }
        expectWellFormedResult(sniffImage(bytes));
      }),
      { numRuns: 5000 },
    );
  });

  type Mutation =
    | { kind: "set"; at: number; value: number }
    | { kind: "insert"; at: number; bytes: Uint8Array }
    | { kind: "delete"; at: number; count: number }
    | { kind: "truncate"; at: number };
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    fc.record({ kind: fc.constant("set" as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }) }),
    fc.record({ kind: fc.constant("delete" as const), at: fc.nat(), count: fc.integer({ min: 1, max: 16 }) }),
    fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
  );
  function mutate(src: Uint8Array, ms: Mutation[]): Uint8Array {
    let b = src;
    for (const m of ms) {
      const at = b.length === 0 ? 0 : m.at % (b.length + 1);
      if (m.kind === "set") {
        if (b.length === 0) continue;
        b = b.slice();
        b[at % b.length] = m.value;
      } else if (m.kind === "insert") b = concat(b.subarray(0, at), m.bytes, b.subarray(at));
      else if (m.kind === "delete") b = concat(b.subarray(0, at), b.subarray(at + m.count));
      else b = b.slice(0, at);
    }
    return b;
  }

  it("never throws on mutated or truncated valid fixtures; ok keeps the signature's type", () => {
    const files = VALID.map(fixture);
    fc.assert(
      fc.property(fc.constantFrom(...files), fc.array(mutation, { minLength: 1, maxLength: 4 }), (file, ms) => {
        const bytes = mutate(file, ms);
        const r = sniffImage(bytes);
        expectWellFormedResult(r);
        if (r.status === "ok") {
          const magic =
            bytes[0] === 0xff ? "image/jpeg" : bytes[0] === 0x89 ? "image/png" : bytes[0] === 0x52 ? "image/webp" : "none";
          expect(r.image.type).toBe(magic);
        }
      }),
      { numRuns: 5000 },
    );
  });

  it("refuses every proper prefix of every valid fixture (no truncated image is accepted)", () => {
    for (const name of VALID) {
      if (name === "jpeg-zero-padded.jpg") continue; // cutting into the padding legitimately stays ok
      const f = fixture(name);
      for (let n = 0; n < f.length; n++) {
        const r = sniffImage(f.subarray(0, n));
        expect(r.status, `${name} cut at ${n}`).not.toBe("ok");
      }
    }
  });

  it("refuses any appended payload (beyond JPEG zero padding)", () => {
    const files = VALID.filter((n) => n !== "jpeg-zero-padded.jpg").map(fixture);
    fc.assert(
      fc.property(
        fc.constantFrom(...files),
        fc.uint8Array({ minLength: 1, maxLength: 256 }).filter((t) => t.some((v) => v !== 0)),
        (file, tail) => {
          expect(sniffImage(concat(file, tail)).status).toBe("malformed");
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("flipping any single bit of a valid PNG after the signature is caught (CRC, length or structure)", () => {
    // Every bit of a PNG after the signature is covered by a length, type, data or CRC check.
    const f = fixture("png-rgb.png");
    for (let i = 8; i < f.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        const b = f.slice();
        b[i] ^= 1 << bit;
        expect(sniffImage(b).status, `byte ${i} bit ${bit}`).toBe("malformed");
      }
    }
  });
});
