import { sha256 } from "@noble/hashes/sha2.js";

/**
 * TRON (TRC20) addresses: base58check of 0x41 + 20-byte account id + 4-byte checksum, where
 * the checksum is the first 4 bytes of sha256(sha256(first 21 bytes)). Always 34 characters
 * starting with "T". A typo almost surely breaks the checksum, so funds are not sent astray.
 */
const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

export function base58Decode(text: string): Uint8Array | null {
  let n = 0n;
  for (const ch of text) {
    const v = BASE58.indexOf(ch);
    if (v < 0) return null;
    n = n * 58n + BigInt(v);
  }
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.unshift(Number(n % 256n));
    n /= 256n;
  }
  for (const ch of text) {
    if (ch !== "1") break;
    bytes.unshift(0);
  }
  return new Uint8Array(bytes);
}

export function base58Encode(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = n * 256n + BigInt(b);
  let out = "";
  while (n > 0n) {
    out = BASE58[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = "1" + out;
  }
  return out;
}

export function isTrc20Address(address: string): boolean {
  if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return false;
  const bytes = base58Decode(address);
  if (!bytes || bytes.length !== 25 || bytes[0] !== 0x41) return false;
  const check = sha256(sha256(bytes.subarray(0, 21)));
  return check[0] === bytes[21] && check[1] === bytes[22] && check[2] === bytes[23] && check[3] === bytes[24];
}

/** Builds a valid address from a 20-byte account id (tests and demo data). */
export function trc20FromAccountId(id20: Uint8Array): string {
  const body = new Uint8Array(21);
  body[0] = 0x41;
  body.set(id20, 1);
  const check = sha256(sha256(body)).subarray(0, 4);
  const full = new Uint8Array(25);
  full.set(body);
  full.set(check, 21);
  return base58Encode(full);
}

/** Card numbers: 12-19 digits (spaces and dashes allowed when typed) passing the Luhn check. */
export function normalizeCardNumber(input: string): string {
  return input.replace(/[\s-]/g, "");
}

export function isValidCardNumber(input: string): boolean {
  const digits = normalizeCardNumber(input);
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The last four digits: all of the number that is kept readable (lists, withdrawal records). */
export function cardLast4(card: string): string {
  return normalizeCardNumber(card).slice(-4);
}

/** "**** **** **** 1234": what lists and withdrawal records show of a card. */
export function maskCardLast4(last4: string): string {
  return `**** **** **** ${last4}`;
}
