/**
 * The user sessions orders are placed under, kept in the symbol's hub so that placing an order
 * reads nothing from the database (decision 106). D1 stays the truth:
 *
 * - a session is read from D1 the first time the hub sees it, and whenever its memory is
 *   older than `SESSION_STALE_MS` or past its expiry;
 * - every way a session ends (sign-out, "sign out other devices", ending one device, a password
 *   change) writes D1 and then tells every hub to forget it before answering (write-through),
 *   so the very next order is refused;
 * - in case that message was lost, an entry older than `SESSION_RECHECK_MS` is re-checked in the
 *   background (one query for all due entries, which also touches their last_seen, as a
 *   request through D1 would): the order that found it due does not wait for it;
 * - a restart starts empty and reads again.
 *
 * A forget that lands while a read is in flight wins: that read's answer is used once but not
 * kept (`version`), so a session ended during the read is read again next time.
 */
import type { Db } from "../../worker/db/client";
import { resolveSession, touchLiveSessions } from "../../worker/domain/identity/session";
import { logError } from "../../worker/observability/log";

export type SessionLookup =
  | { status: "ok"; subject_id: number; expires_at_ms: number }
  | { status: "missing" | "expired" | "revoked" };

export type SessionSource = {
  /** One session by its token hash, touched if due (resolveSession, the one resolver). */
  read(token_hash: string, now_ms: number): Promise<SessionLookup>;
  /** The live ones among these, touched (touchLiveSessions). */
  recheck(token_hashes: readonly string[], now_ms: number): Promise<Map<string, { subject_id: number; expires_at_ms: number }>>;
};

/** User sessions in D1; `db` gives a fresh counted view per use. */
export function d1Sessions(db: () => Db): SessionSource {
  return {
    read: (token_hash, now_ms) => resolveSession(db(), "user", { token_hash }, now_ms),
    recheck: (token_hashes, now_ms) => touchLiveSessions(db(), "user", token_hashes, now_ms),
  };
}

/** Re-checked against D1 in the background after this long (the touch interval of last_seen). */
export const SESSION_RECHECK_MS = 60_000;
/** Read again before use after this long: a lost forget and a failing re-check end here. */
export const SESSION_STALE_MS = 180_000;
/** Past this many entries the oldest are dropped (read again if used). */
export const SESSION_CACHE_MAX = 50_000;

type Entry = { user_id: number; expires_at_ms: number; checked_at_ms: number };

export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  private version = 0;
  private readonly due = new Set<string>();
  private rechecking = false;

  constructor(private readonly deps: { source: SessionSource; now: () => number; background: (work: Promise<unknown>) => void }) {}

  /** The user a token hash is signed in as, or null: from memory when it can be trusted. */
  async userOf(token_hash: string): Promise<number | null> {
    const now = this.deps.now();
    const e = this.entries.get(token_hash);
    if (e && now < e.expires_at_ms && now - e.checked_at_ms < SESSION_STALE_MS) {
      if (now - e.checked_at_ms >= SESSION_RECHECK_MS) this.recheckLater(token_hash);
      return e.user_id;
    }
    const version = this.version;
    const s = await this.deps.source.read(token_hash, now);
    if (s.status !== "ok") {
      this.entries.delete(token_hash);
      return null;
    }
    if (version === this.version) this.keep(token_hash, { user_id: s.subject_id, expires_at_ms: s.expires_at_ms, checked_at_ms: now });
    return s.subject_id;
  }

  /** A session ended (by its hash), or all of a user's: the next order reads D1. */
  forget(which: { token_hash?: string; user_id?: number }) {
    this.version++;
    if (which.token_hash !== undefined) this.entries.delete(which.token_hash);
    if (which.user_id !== undefined) for (const [hash, e] of this.entries) if (e.user_id === which.user_id) this.entries.delete(hash);
  }

  get size(): number {
    return this.entries.size;
  }

  private keep(token_hash: string, e: Entry) {
    this.entries.delete(token_hash);
    this.entries.set(token_hash, e);
    // A Map iterates in insertion order: the first key is the one kept longest ago.
    while (this.entries.size > SESSION_CACHE_MAX) this.entries.delete(this.entries.keys().next().value!);
  }

  private recheckLater(token_hash: string) {
    this.due.add(token_hash);
    if (this.rechecking) return;
    this.rechecking = true;
    this.deps.background(this.recheckDue().finally(() => (this.rechecking = false)));
  }

  /** All due entries in one query; the ones D1 no longer calls live are forgotten. */
  private async recheckDue() {
    // The entries found due in this same turn join the first query.
    await null;
    while (this.due.size > 0) {
      const hashes = [...this.due].slice(0, 500);
      for (const h of hashes) this.due.delete(h);
      const version = this.version;
      const now = this.deps.now();
      let live: Awaited<ReturnType<SessionSource["recheck"]>>;
      try {
        live = await this.deps.source.recheck(hashes, now);
      } catch (err) {
        // The entries stay until SESSION_STALE_MS, then are read before use.
        logError("session.recheck_failed", { err });
        return;
      }
      for (const h of hashes) {
        const l = live.get(h);
        if (!l) this.entries.delete(h);
        else if (version === this.version && this.entries.has(h)) this.keep(h, { user_id: l.subject_id, expires_at_ms: l.expires_at_ms, checked_at_ms: now });
      }
    }
  }
}
