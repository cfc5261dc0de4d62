/**
 * What a profile's fields must look like, as pure functions (no DB): each answers the value to
 * store or the named reason it was refused, so the API and the page agree on one rule.
 */

export type FieldFailure = "name_invalid" | "phone_invalid" | "email_invalid" | "id_photo_unknown" | "signature_unknown";
export type Checked<T> = { status: "ok"; value: T } | { status: FieldFailure };

export const NAME_MIN = 2;
export const NAME_MAX = 64;

/** Inner runs of whitespace become one space; counted in characters, not UTF-16 units. */
export function checkName(raw: string): Checked<string> {
  const value = raw.trim().replace(/\s+/g, " ");
  const length = [...value].length;
  // Control characters would be invisible to the operator comparing the name with the ID.
  if (length < NAME_MIN || length > NAME_MAX || /\p{Cc}/u.test(value)) return { status: "name_invalid" };
  return { status: "ok", value };
}

/**
 * E.164: "+", a country code that never starts with 0, 8 to 15 digits in all. People type
 * spaces and dashes between groups; those are stripped, anything else is refused.
 */
export function checkPhone(raw: string): Checked<string> {
  const value = raw.trim().replace(/[\s-]/g, "");
  if (!/^\+[1-9]\d{7,14}$/.test(value)) return { status: "phone_invalid" };
  return { status: "ok", value };
}

// The apostrophe and the backtick as \x27 and \x60: the same characters, without a lone quote that reads as an open string to tools.
const LOCAL = /^[A-Za-z0-9!#$%&\x27*+/=?^_\x60{|}~-]+(\.[A-Za-z0-9!#$%&\x27*+/=?^_\x60{|}~-]+)*$/;
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * RFC 5322's dot-atom form (no quoted local parts or IP literals, which real mailboxes do not
 * use) at a domain of at least two DNS labels with a letter-only top level. Domains are case
 * insensitive, so the stored form has it lower-cased; the local part is kept as typed.
 */
export function checkEmail(raw: string): Checked<string> {
  const trimmed = raw.trim();
  const at = trimmed.lastIndexOf("@");
  if (at < 1 || trimmed.length > 254) return { status: "email_invalid" };
  const local = trimmed.slice(0, at);
  const domain = trimmed.slice(at + 1).toLowerCase();
  const labels = domain.split(".");
  const valid =
    local.length <= 64 &&
    LOCAL.test(local) &&
    labels.length >= 2 &&
    labels.every((l) => LABEL.test(l)) &&
    /^[a-z]{2,63}$/.test(labels[labels.length - 1]);
  return valid ? { status: "ok", value: `${local}@${domain}` } : { status: "email_invalid" };
}

/** An image reference as `/api/common/upload` answered it ("/files/<id>") or the bare id. */
export function uploadIdOf(raw: string): string | null {
  const m = /^(?:\/files\/)?([0-9a-f]{32})$/.exec(raw.trim());
  return m ? m[1] : null;
}

export type ProfileInput = { name: string; phone: string; email: string; id_photo: string; signature: string };
export type ProfileFields = { name: string; phone: string; email: string; id_photo_id: string; signature_id: string };

/** All fields at once; the first refusal in the form's order is the one reported. */
export function checkProfile(input: ProfileInput): Checked<ProfileFields> {
  const name = checkName(input.name);
  if (name.status !== "ok") return name;
  const phone = checkPhone(input.phone);
  if (phone.status !== "ok") return phone;
  const email = checkEmail(input.email);
  if (email.status !== "ok") return email;
  const id_photo_id = uploadIdOf(input.id_photo);
  if (!id_photo_id) return { status: "id_photo_unknown" };
  const signature_id = uploadIdOf(input.signature);
  if (!signature_id) return { status: "signature_unknown" };
  return { status: "ok", value: { name: name.value, phone: phone.value, email: email.value, id_photo_id, signature_id } };
}
