/**
 * Account and password rules, in one place: the API's zod schemas and the forms' hints
 * (locales auth.account_rule / auth.password_rule) describe exactly these.
 */
export const ACCOUNT_RE = /^[A-Za-z][A-Za-z0-9_]{3,19}$/;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 64;

export function isValidAccount(account: string): boolean {
  return ACCOUNT_RE.test(account);
}

export function isValidPassword(password: string): boolean {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) return false;
  return /\p{L}/u.test(password) && /\p{Nd}/u.test(password);
}

/** Accounts are case-insensitive: "Alice" and "alice" are the same account. */
export function normalizeAccount(account: string): string {
  return account.trim().toLowerCase();
}

const INVITE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"; // no 0/O, 1/I: read aloud safely
export const INVITE_CODE_RE = /^[A-Za-z0-9]{4,16}$/;

export function newInviteCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  let code = "";
  for (const b of bytes) code += INVITE_ALPHABET[b % INVITE_ALPHABET.length]; // 256 % 32 == 0: unbiased
  return code;
}

export function normalizeInviteCode(code: string): string {
  return code.trim().toUpperCase();
}
