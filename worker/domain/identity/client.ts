/**
 * Who is signing in, as far as the request tells: a device label from the user agent and the
 * client's network. Both are coarse on purpose: enough for the owner to recognise their own
 * phone and home network in the session list, not a fingerprint of the visitor.
 */
export type Client = { device: string; ip: string };
export type SignInMethod = "password" | "wallet" | "passkey" | "recovery";
export type SignInClient = Client & { method: SignInMethod };

/** A request without a user agent or address (scripts, tests calling the app directly). */
export const UNKNOWN_CLIENT: Client = { device: "", ip: "local" };

/** Checked in order: Edge, Opera and Samsung Internet also say "Chrome", Chrome also says "Safari". */
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(A|iOS|e)?\//, "Edge"],
  [/\bOPR\/|\bOpera\b/, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\bChrome\/|\bCriOS\/|\bHeadlessChrome\/|\bChromium\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
];

/** Android before Linux (its user agent says both), iOS before macOS (iPads may say "Mac OS X" too, with "Mobile"). */
const SYSTEMS: [RegExp, string][] = [
  [/\bAndroid\b/, "Android"],
  [/\b(iPhone|iPad|iPod)\b|Macintosh.*\bMobile\//, "iOS"],
  [/\bWindows\b/, "Windows"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

const pick = (ua: string, table: [RegExp, string][]) => table.find(([re]) => re.test(ua))?.[1] ?? null;

/** "Chrome on Android"; what is not recognised is left out, and nothing at all is "". */
export function deviceLabel(userAgent: string | null | undefined): string {
  const ua = (userAgent ?? "").slice(0, 512);
  const browser = pick(ua, BROWSERS);
  const system = pick(ua, SYSTEMS);
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? "";
}

/** The /24 of an IPv4 address or the /48 of an IPv6 one; "local" without an address. */
export function networkOf(address: string | null | undefined): string {
  const ip = (address ?? "").trim();
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (v4 && v4.slice(1).every((p) => Number(p) <= 255)) return `${Number(v4[1])}.${Number(v4[2])}.${Number(v4[3])}.0/24`;
  const v6 = ipv6Groups(ip);
  if (v6) return `${v6.slice(0, 3).join(":")}::/48`;
  return "local";
}

/**
 * The network a per-network limit counts (the sign-in limiter, guest customer service): an
 * IPv4 address as it is, an IPv6 address by its /64, the smallest block a subscriber is given
 * (the rest of the address is theirs to change at will). null without an address: in-process
 * calls of scripts and tests are not counted.
 */
export function limiterNetworkOf(address: string | null | undefined): string | null {
  const ip = (address ?? "").trim();
  if (!ip) return null;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1];
  const v6 = ipv6Groups(ip);
  return v6 ? `${v6.slice(0, 4).join(":")}::/64` : ip.slice(0, 64);
}

/** The eight groups of an IPv6 address (with "::" expanded, an embedded IPv4 tail counted as two), or null. */
function ipv6Groups(ip: string): string[] | null {
  if (!ip.includes(":") || ip.length > 45 || !/^[0-9a-fA-F:.]+$/.test(ip)) return null;
  const halves = ip.split("::");
  if (halves.length > 2) return null;
  const part = (s: string) => (s ? s.split(":") : []);
  const [head, tail] = [part(halves[0]), part(halves[1] ?? "")];
  const last = (tail.length ? tail : head).at(-1) ?? "";
  const extra = last.includes(".") ? 1 : 0;
  const missing = 8 - head.length - tail.length - extra;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array(halves.length === 1 ? 0 : missing).fill("0"), ...tail];
  if (!groups.slice(0, 3).every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  return groups.map((g) => (g.includes(".") ? g : g.toLowerCase().replace(/^0+(?=.)/, "")));
}

/** The client of a request: its user agent and Cloudflare's `CF-Connecting-IP`. */
export function clientOf(headers: { get(name: string): string | null }): Client {
  return { device: deviceLabel(headers.get("user-agent")), ip: networkOf(headers.get("cf-connecting-ip")) };
}
