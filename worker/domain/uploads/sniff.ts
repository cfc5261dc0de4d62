/**
 * Byte-level classification of uploaded images (recharge screenshots, ID photos).
 *
 * This is a security boundary: whatever passes is stored and later served back to browsers and
 * operators. So the declared content type and the file name are ignored, only JPEG, PNG and WebP
 * are accepted, and each format's container structure is walked end to end. A file that merely
 * *starts* like an image is not enough: appended payloads (JPEG+HTML, PNG+ZIP, GIFAR-style
 * polyglots) are refused because every byte must belong to the image structure.
 *
 * What this does not do: decode pixels. Bytes *inside* legitimate segments (JPEG COM/APPn, PNG
 * tEXt, WebP unknown chunks, entropy-coded data) are not inspected, so stored files must still be
 * served with their sniffed Content-Type, `X-Content-Type-Options: nosniff` and ideally
 * `Content-Disposition: attachment` or from a separate origin.
 *
 * Plain functions, no dependencies, no Node or Workers APIs: runs in Node 20 and in workerd.
 * Every read is bounds-checked against the array length, so arbitrary input never throws.
 */

export const MAX_UPLOAD_BYTES = 1024 * 1024;

export type ImageKind = {
  type: "image/jpeg" | "image/png" | "image/webp";
  ext: "jpg" | "png" | "webp";
  width: number;
  height: number;
};

export type SniffResult = { status: "ok"; image: ImageKind } | { status: "empty" | "too_large" | "not_an_image" | "malformed" };

const MALFORMED: SniffResult = { status: "malformed" };

export function sniffImage(bytes: Uint8Array): SniffResult {
  if (bytes.length === 0) return { status: "empty" };
  // Size first: never spend parsing work on input we would refuse anyway.
  if (bytes.length > MAX_UPLOAD_BYTES) return { status: "too_large" };

  // Dispatch on the magic bytes only. Once a signature matches, the file claims to be that
  // format, so any structural failure is "malformed" (not silently "some other type").
  if (startsWith(bytes, 0, JPEG_SOI)) return sniffJpeg(bytes);
  if (startsWith(bytes, 0, PNG_MAGIC)) return sniffPng(bytes);
  if (startsWith(bytes, 0, RIFF) && startsWith(bytes, 8, WEBP)) return sniffWebp(bytes);
  // GIF, SVG, HTML, PDF, ZIP, BMP, ICO, TIFF, HEIC/AVIF, RIFF/WAVE, text, ...: not accepted.
  return { status: "not_an_image" };
}

// ---------------------------------------------------------------------------------------------
// Helpers

const JPEG_SOI = [0xff, 0xd8, 0xff];
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47]; // "\x89PNG": enough to claim PNG; full signature checked below
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const RIFF = ascii("RIFF");
const WEBP = ascii("WEBP");

function ascii(s: string): number[] {
  return Array.from(s, (c) => c.charCodeAt(0));
}

function startsWith(b: Uint8Array, at: number, sig: readonly number[]): boolean {
  if (at + sig.length > b.length) return false;
  for (let i = 0; i < sig.length; i++) if (b[at + i] !== sig[i]) return false;
  return true;
}

function fourcc(b: Uint8Array, at: number): string {
  return String.fromCharCode(b[at], b[at + 1], b[at + 2], b[at + 3]);
}

// Callers check bounds first; `>>> 0` keeps 32-bit values unsigned.
const u16be = (b: Uint8Array, at: number) => (b[at] << 8) | b[at + 1];
const u16le = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8);
const u24le = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8) | (b[at + 2] << 16);
const u32be = (b: Uint8Array, at: number) => ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;
const u32le = (b: Uint8Array, at: number) => (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;

function ok(type: ImageKind["type"], ext: ImageKind["ext"], width: number, height: number): SniffResult {
  return { status: "ok", image: { type, ext, width, height } };
}

// ---------------------------------------------------------------------------------------------
// JPEG (ITU T.81): SOI, marker segments, SOF, one or more scans, EOI, nothing after.

/** At most this many 0x00 bytes may follow EOI (some cameras/encoders pad); nothing else may. */
const JPEG_MAX_TRAILING_ZEROS = 64;

function isSof(m: number): boolean {
  // C4 (DHT), C8 (JPG, reserved) and CC (DAC) sit in the same range but are not frame headers.
  return m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;
}

/**
 * Markers with a length field we accept between SOI and EOI. Everything else (TEM, RSTn outside
 * a scan, a second SOI, reserved 02–BF, JPG/JPGn, DHP/EXP for hierarchical mode) is refused:
 * no legitimate screenshot or photo needs them, and unknown markers are where parsers disagree.
 */
function isAllowedSegment(m: number): boolean {
  return (
    isSof(m) ||
    m === 0xc4 || // DHT
    m === 0xcc || // DAC
    m === 0xda || // SOS
    m === 0xdb || // DQT
    m === 0xdc || // DNL
    m === 0xdd || // DRI
    (m >= 0xe0 && m <= 0xef) || // APPn (JFIF, Exif, ICC, Adobe, ...)
    m === 0xfe // COM
  );
}

function sniffJpeg(b: Uint8Array): SniffResult {
  const n = b.length;
  let p = 2; // just after SOI (FF D8); b[2] is the 0xFF of the first marker
  let size: { width: number; height: number } | null = null;
  let sawScan = false;

  for (;;) {
    // Every segment starts with 0xFF; any other byte here is garbage between segments.
    if (p >= n || b[p] !== 0xff) return MALFORMED;
    // Any number of 0xFF fill bytes may precede the marker code (T.81 B.1.1.2).
    while (p < n && b[p] === 0xff) p++;
    if (p >= n) return MALFORMED;
    const m = b[p++];

    if (m === 0xd9) {
      // EOI. Only valid after at least one scan (and so after a frame header).
      return size !== null && sawScan ? jpegTail(b, p, size) : MALFORMED;
    }
    if (!isAllowedSegment(m)) return MALFORMED;

    // Length counts itself (2 bytes) but not the marker; the whole segment must fit the file.
    if (p + 2 > n) return MALFORMED;
    const len = u16be(b, p);
    if (len < 2 || p + len > n) return MALFORMED;
    const seg = p + 2; // payload start
    const segEnd = p + len;

    if (isSof(m)) {
      // Exactly one frame header: several SOFs means hierarchical mode or a spliced file.
      if (size !== null) return MALFORMED;
      // P(1) Y(2) X(2) Nf(1), then 3 bytes per component.
      if (len < 8) return MALFORMED;
      const height = u16be(b, seg + 1);
      const width = u16be(b, seg + 3);
      const nf = b[seg + 5];
      if (nf < 1 || nf > 4 || len !== 8 + 3 * nf) return MALFORMED;
      // Height 0 (defined later by DNL) is legal T.81 but browsers do not support it; refuse.
      if (width === 0 || height === 0) return MALFORMED;
      size = { width, height };
    } else if (m === 0xda) {
      // SOS: a scan needs a frame header first. Ns(1), 2 bytes per component, Ss Se AhAl(3).
      if (size === null) return MALFORMED;
      if (len < 6) return MALFORMED;
      const ns = b[seg];
      if (ns < 1 || ns > 4 || len !== 6 + 2 * ns) return MALFORMED;
      sawScan = true;
      // Entropy-coded data follows the header and has no length: scan it byte by byte.
      // Inside it 0xFF is only followed by 0x00 (stuffing) or RST0–7; any other marker ends it.
      p = segEnd;
      for (;;) {
        if (p >= n) return MALFORMED; // data runs off the end: truncated
        if (b[p] !== 0xff) {
          p++;
          continue;
        }
        if (p + 1 >= n) return MALFORMED;
        const next = b[p + 1];
        if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) {
          p += 2;
          continue;
        }
        break; // 0xFF fill or a real marker: let the segment loop handle it
      }
      continue;
    }
    p = segEnd;
  }
}

/**
 * After EOI only a little zero padding is tolerated. Anything else is an appended payload
 * (HTML, ZIP, a second JPEG, ...) that some other parser might act on: refuse it.
 */
function jpegTail(b: Uint8Array, p: number, size: { width: number; height: number }): SniffResult {
  const rest = b.length - p;
  if (rest > JPEG_MAX_TRAILING_ZEROS) return MALFORMED;
  for (let i = p; i < b.length; i++) if (b[i] !== 0x00) return MALFORMED;
  return ok("image/jpeg", "jpg", size.width, size.height);
}

// ---------------------------------------------------------------------------------------------
// PNG (ISO 15948): signature, IHDR first, chunks with CRCs, IEND last and at end of file.

const PNG_MAX_DIMENSION = 100_000;

let crcTable: Uint32Array | null = null;

/** CRC-32 (ISO 3309 / ITU V.42, reflected poly 0xEDB88320) as used by PNG and ZIP. */
function crc32(b: Uint8Array, start = 0, end = b.length): number {
  if (crcTable === null) {
    crcTable = new Uint32Array(256);
    for (let i = 0; i < 256; i++) {
      let c = i;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[i] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = crcTable[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Valid bit depths per colour type (PNG spec 11.2.2, table 11.1). */
const PNG_DEPTHS: Record<number, readonly number[]> = {
  0: [1, 2, 4, 8, 16], // greyscale
  2: [8, 16], // truecolour
  3: [1, 2, 4, 8], // indexed
  4: [8, 16], // greyscale + alpha
  6: [8, 16], // truecolour + alpha
};

function isAsciiLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function sniffPng(b: Uint8Array): SniffResult {
  const n = b.length;
  // The full 8 bytes detect text-mode / 7-bit transfer damage; a partial match is a broken PNG.
  if (!startsWith(b, 0, PNG_SIGNATURE)) return MALFORMED;

  let p = 8;
  let width = 0;
  let height = 0;
  let colourType = -1;
  let sawPlte = false;
  let idat: "none" | "in" | "done" = "none";
  let first = true;

  while (p < n) {
    // length(4) type(4) data(length) crc(4): the whole chunk must lie inside the file.
    if (p + 12 > n) return MALFORMED;
    const len = u32be(b, p);
    if (len > 0x7fffffff || len > n - p - 12) return MALFORMED;
    const typeAt = p + 4;
    const dataAt = p + 8;
    const end = dataAt + len + 4;
    for (let i = 0; i < 4; i++) if (!isAsciiLetter(b[typeAt + i])) return MALFORMED;
    // CRC covers type + data. A mismatch means corruption or tampering: refuse.
    if (crc32(b, typeAt, dataAt + len) !== u32be(b, dataAt + len)) return MALFORMED;
    const type = fourcc(b, typeAt);

    if (first) {
      // IHDR must come first with exactly 13 bytes; its fields must be a combination decoders accept.
      if (type !== "IHDR" || len !== 13) return MALFORMED;
      width = u32be(b, dataAt);
      height = u32be(b, dataAt + 4);
      const depth = b[dataAt + 8];
      colourType = b[dataAt + 9];
      const compression = b[dataAt + 10];
      const filter = b[dataAt + 11];
      const interlace = b[dataAt + 12];
      // Cap dimensions: a tiny file can declare a gigantic canvas (decompression bomb).
      if (width === 0 || height === 0 || width > PNG_MAX_DIMENSION || height > PNG_MAX_DIMENSION) return MALFORMED;
      const depths = PNG_DEPTHS[colourType];
      if (depths === undefined || !depths.includes(depth)) return MALFORMED;
      if (compression !== 0 || filter !== 0 || interlace > 1) return MALFORMED;
      first = false;
      p = end;
      continue;
    }

    if (type === "IHDR") return MALFORMED; // only once
    if (idat === "in" && type !== "IDAT") idat = "done";

    if (type === "IEND") {
      // IEND is empty, needs image data before it, and must be the very last bytes:
      // anything appended (ZIP, HTML, a second PNG) makes this a polyglot.
      if (len !== 0 || idat === "none") return MALFORMED;
      if (colourType === 3 && !sawPlte) return MALFORMED;
      return end === n ? ok("image/png", "png", width, height) : MALFORMED;
    } else if (type === "IDAT") {
      // IDAT chunks must be consecutive (spec 5.6).
      if (idat === "done") return MALFORMED;
      if (colourType === 3 && !sawPlte) return MALFORMED; // indexed needs its palette first
      idat = "in";
    } else if (type === "PLTE") {
      // Once, before IDAT, a whole number of RGB entries, at most 256; never for grey types.
      if (sawPlte || idat !== "none" || len === 0 || len % 3 !== 0 || len > 768) return MALFORMED;
      if (colourType === 0 || colourType === 4) return MALFORMED;
      sawPlte = true;
    } else if ((b[typeAt] & 0x20) === 0) {
      // Unknown *critical* chunk (uppercase first letter): a conforming decoder must fail.
      return MALFORMED;
    }
    // Other ancillary chunks (tEXt, iCCP, pHYs, eXIf, private ones, ...) are skipped.
    p = end;
  }
  // Ran out of bytes before IEND: truncated.
  return MALFORMED;
}

// ---------------------------------------------------------------------------------------------
// WebP (RFC 9649): RIFF container whose size covers exactly the file, then WebP chunks.

function sniffWebp(b: Uint8Array): SniffResult {
  const n = b.length;
  // RIFF size counts everything after its own field. It must match the file exactly:
  // bytes beyond it would be an appended payload; fewer means truncation.
  if (u32le(b, 4) + 8 !== n) return MALFORMED;

  // Collect the chunk list first, checking every chunk (plus its pad byte when the payload
  // length is odd) lies inside the file and the last one ends exactly at EOF.
  const chunks: { id: string; at: number; size: number }[] = [];
  let p = 12;
  while (p < n) {
    if (p + 8 > n) return MALFORMED;
    const size = u32le(b, p + 4);
    const padded = size + (size & 1);
    if (padded > n - p - 8) return MALFORMED;
    chunks.push({ id: fourcc(b, p), at: p + 8, size });
    p += 8 + padded;
  }
  if (chunks.length === 0) return MALFORMED;

  const head = chunks[0];
  if (head.id === "VP8 " || head.id === "VP8L") {
    // Simple format: the bitstream chunk is the whole file. Extra chunks are only legal
    // behind a VP8X header, so anything else here is smuggled data.
    if (chunks.length !== 1) return MALFORMED;
    const dim = head.id === "VP8 " ? vp8Size(b, head.at, head.size) : vp8lSize(b, head.at, head.size);
    return dim ? ok("image/webp", "webp", dim.width, dim.height) : MALFORMED;
  }
  if (head.id !== "VP8X") return MALFORMED;

  // Extended format. Payload: flags(1) reserved(3) canvas width-1 (24 LE) canvas height-1 (24 LE).
  if (head.size !== 10) return MALFORMED;
  const flags = b[head.at];
  const width = u24le(b, head.at + 4) + 1;
  const height = u24le(b, head.at + 7) + 1;
  if (width * height > 0xffffffff) return MALFORMED; // spec limit on canvas area
  const animated = (flags & 0x02) !== 0;

  let frames = 0;
  let anim = false;
  let image: { width: number; height: number } | null = null;
  for (let i = 1; i < chunks.length; i++) {
    const c = chunks[i];
    switch (c.id) {
      case "VP8X":
        return MALFORMED; // header only once
      case "ANIM":
        anim = true;
        break;
      case "ANMF":
        frames++;
        break;
      case "VP8 ":
      case "VP8L": {
        // A still image has exactly one bitstream, and it must be the canvas size.
        if (animated || image !== null) return MALFORMED;
        image = c.id === "VP8 " ? vp8Size(b, c.at, c.size) : vp8lSize(b, c.at, c.size);
        if (image === null || image.width !== width || image.height !== height) return MALFORMED;
        break;
      }
      default:
        // ALPH, ICCP, EXIF, XMP and unknown chunks: allowed, contents not interpreted.
        break;
    }
  }
  if (animated ? !anim || frames === 0 : image === null) return MALFORMED;
  return ok("image/webp", "webp", width, height);
}

/** Lossy VP8 key frame header (RFC 6386 9.1): frame tag(3), start code 9D 01 2A, 14-bit sizes. */
function vp8Size(b: Uint8Array, at: number, size: number): { width: number; height: number } | null {
  if (size < 10) return null;
  const tag = u24le(b, at);
  const keyFrame = (tag & 1) === 0;
  const version = (tag >> 1) & 7;
  const showFrame = (tag >> 4) & 1;
  const firstPartition = tag >>> 5;
  // A still image must be a shown key frame; its first partition must fit in the chunk.
  if (!keyFrame || version > 3 || showFrame !== 1 || firstPartition > size - 10) return null;
  if (b[at + 3] !== 0x9d || b[at + 4] !== 0x01 || b[at + 5] !== 0x2a) return null;
  // The top 2 bits of each are upscaling hints, not part of the size.
  const width = u16le(b, at + 6) & 0x3fff;
  const height = u16le(b, at + 8) & 0x3fff;
  return width > 0 && height > 0 ? { width, height } : null;
}

/** Lossless VP8L header: signature 0x2F, then 14 bits width-1, 14 bits height-1, alpha, 3-bit version 0. */
function vp8lSize(b: Uint8Array, at: number, size: number): { width: number; height: number } | null {
  if (size < 5 || b[at] !== 0x2f) return null;
  const bits = u32le(b, at + 1);
  if (bits >>> 29 !== 0) return null; // version must be 0
  return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
}
