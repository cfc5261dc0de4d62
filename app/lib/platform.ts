/**
 * The platform flag the old app kept in localStorage under `platform`: 'i' on iOS (iPhone,
 * iPad, and iPads that call themselves Macintosh but have touch), 'a' on Android, nothing
 * elsewhere. Only the page reads it (e.g. to word install steps); the server is not told, as
 * nothing it does depends on the phone.
 */
export type Platform = "i" | "a";
export const PLATFORM_KEY = "platform";

export function platformOf(userAgent: string, maxTouchPoints = 0): Platform | null {
  if (/android/i.test(userAgent)) return "a";
  if (/iphone|ipad|ipod/i.test(userAgent)) return "i";
  if (/macintosh/i.test(userAgent) && maxTouchPoints > 1) return "i";
  return null;
}

/** Stores the flag once per load (browser only); storage errors (private mode) are ignored. */
export function rememberPlatform() {
  const platform = platformOf(navigator.userAgent, navigator.maxTouchPoints);
  try {
    if (platform) window.localStorage.setItem(PLATFORM_KEY, platform);
    else window.localStorage.removeItem(PLATFORM_KEY);
  } catch {
    // storage unavailable: nothing depends on the flag
  }
}

export function readPlatform(): Platform | null {
  try {
    const value = window.localStorage.getItem(PLATFORM_KEY);
    return value === "i" || value === "a" ? value : null;
  } catch {
    return null;
  }
}
