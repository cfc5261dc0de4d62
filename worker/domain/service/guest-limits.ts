/**
 * What guests (no account) may start in customer service: new conversations and uploaded
 * pictures, per network per hour and per day, and in total per day (decision 115). A guest is
 * only a cookie, and a new cookie is free: limits per conversation (decision 100) stop nobody
 * who simply opens another. Each is a window of the throttle table (`takeAttempt`): one
 * statement takes a unit or refuses once the window's are taken, so parallel requests cannot
 * pass a limit together.
 */
import { isLocalRun } from "../../app-env";
import type { Db } from "../../db/client";
import { takeAttempt, type Budget } from "../identity/throttle";

export type GuestThing = "conversation" | "upload";

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * Per network: enough for a person (or a family behind one router) who writes in, leaves and
 * comes back; per day in total: a ceiling on what strangers can put on the operators' inbox
 * and into R2 (2,000 pictures under 1 MiB at most), far above the service's guest traffic.
 */
export const GUEST_LIMITS: Record<GuestThing, { network_hour: number; network_day: number; total_day: number }> = {
  conversation: { network_hour: 5, network_day: 20, total_day: 2_000 },
  upload: { network_hour: 20, network_day: 60, total_day: 2_000 },
};

export type GuestAdmission = { status: "ok" } | { status: "network" | "total"; retry_after_ms: number };

/** The windows one guest action takes, the network's first: a refused network spends no place of the total. */
export function guestWindows(thing: GuestThing, network: string | null, scale = 1): { key: string; budget: Budget; scope: "network" | "total" }[] {
  const l = GUEST_LIMITS[thing];
  const own = network
    ? [
        { key: `guest:${thing}:hour:${network}`, budget: { max: l.network_hour * scale, window_ms: HOUR_MS }, scope: "network" as const },
        { key: `guest:${thing}:day:${network}`, budget: { max: l.network_day * scale, window_ms: DAY_MS }, scope: "network" as const },
      ]
    : [];
  return [...own, { key: `guest:${thing}:day:all`, budget: { max: l.total_day, window_ms: DAY_MS }, scope: "total" as const }];
}

/**
 * Takes one place of each window for a guest's new conversation or picture. `network` is
 * `limiterNetworkOf` the client's address (null: an in-process call of a script, counted in the
 * total only); `scale` multiplies the per-network limits (only the e2e server, see
 * `guestLimitScale`).
 */
export async function admitGuest(db: Db, thing: GuestThing, network: string | null, now_ms: number, scale = 1): Promise<GuestAdmission> {
  for (const w of guestWindows(thing, network, scale)) {
    const taken = await takeAttempt(db, w.key, now_ms, w.budget);
    if (taken.status === "locked") return { status: w.scope, retry_after_ms: taken.retry_after_ms };
  }
  return { status: "ok" };
}

/**
 * Test-only: `GUEST_LIMITS_SCALE` multiplies the per-network limits for the e2e server, whose
 * journeys all come from 127.0.0.1 (as its raised AUTH_LIMIT budget does). Ignored in
 * production, like every test switch.
 */
export function guestLimitScale(env: { APP_ENV: string; GUEST_LIMITS_SCALE?: string }): number {
  if (!isLocalRun(env)) return 1;
  const n = Number(env.GUEST_LIMITS_SCALE ?? "1");
  return Number.isInteger(n) && n >= 1 ? n : 1;
}
