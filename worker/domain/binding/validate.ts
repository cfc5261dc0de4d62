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
