import { describe, expect, it } from "vitest";
import { SESSION_RECHECK_MS, SESSION_STALE_MS, SessionCache, type SessionLookup, type SessionSource } from "../../../durable-objects/quotes/session-cache";

/** A D1 of sessions in memory, counting its reads. */
function fakeSource() {
  const live = new Map<string, { user_id: number; expires_at_ms: number }>();
  const calls = { read: 0, recheck: 0 };
  let gate: Promise<void> | null = null;
  const source: SessionSource = {
    async read(hash): Promise<SessionLookup> {
      calls.read++;
      const s = live.get(hash);
      if (gate) await gate;
      return s ? { status: "ok", subject_id: s.user_id, expires_at_ms: s.expires_at_ms } : { status: "revoked" };
    },
    async recheck(hashes) {
      calls.recheck++;
      return new Map(hashes.filter((h) => live.has(h)).map((h) => [h, { subject_id: live.get(h)!.user_id, expires_at_ms: live.get(h)!.expires_at_ms }]));
    },
  };
  return { live, calls, source, hold: (p: Promise<void> | null) => (gate = p) };
}

function cacheOn(src: ReturnType<typeof fakeSource>, clock: { now: number }) {
  const background: Promise<unknown>[] = [];
  const cache = new SessionCache({ source: src.source, now: () => clock.now, background: (w) => background.push(w) });
  return { cache, settle: () => Promise.all(background) };
}

describe("SessionCache", () => {
  it("reads a session once, then answers from memory", async () => {
    const src = fakeSource();
    const clock = { now: 1_000 };
    src.live.set("a", { user_id: 7, expires_at_ms: 10_000_000 });
    const { cache } = cacheOn(src, clock);
    for (let i = 0; i < 5; i++) expect(await cache.userOf("a")).toBe(7);
    expect(src.calls.read).toBe(1);
    expect(await cache.userOf("nobody")).toBeNull();
    expect(await cache.userOf("nobody")).toBeNull();
    // An unknown token is not remembered: a session created later is found.
    expect(src.calls.read).toBe(3);
  });

  it("a forget makes the next use read again, and a revoked session is refused", async () => {
    const src = fakeSource();
    const clock = { now: 1_000 };
    src.live.set("a", { user_id: 7, expires_at_ms: 10_000_000 });
    src.live.set("b", { user_id: 7, expires_at_ms: 10_000_000 });
    src.live.set("c", { user_id: 8, expires_at_ms: 10_000_000 });
    const { cache } = cacheOn(src, clock);
    for (const h of ["a", "b", "c"]) await cache.userOf(h);
    src.live.delete("a");
    cache.forget({ token_hash: "a" });
    expect(await cache.userOf("a")).toBeNull();
    src.live.delete("b");
    cache.forget({ user_id: 7 });
    expect(await cache.userOf("b")).toBeNull();
    expect(await cache.userOf("c")).toBe(8);
    expect(src.calls.read).toBe(5);
  });

  it("a forget during a read wins: that read's answer is not kept", async () => {
    const src = fakeSource();
    const clock = { now: 1_000 };
    src.live.set("a", { user_id: 7, expires_at_ms: 10_000_000 });
    const { cache } = cacheOn(src, clock);
    let open!: () => void;
    src.hold(new Promise<void>((r) => (open = r)));
    const first = cache.userOf("a");
    // Revoked in D1 and forgotten while the read (which saw it live) is in flight.
    src.live.delete("a");
    cache.forget({ token_hash: "a" });
    open();
    src.hold(null);
    expect(await first).toBe(7);
    expect(await cache.userOf("a")).toBeNull();
  });

  it("past its expiry, or when stale, a session is read again before use", async () => {
    const src = fakeSource();
    const clock = { now: 1_000 };
    src.live.set("a", { user_id: 7, expires_at_ms: 5_000 });
    const { cache } = cacheOn(src, clock);
    await cache.userOf("a");
    clock.now = 5_000;
    src.live.delete("a");
    expect(await cache.userOf("a")).toBeNull();
    src.live.set("b", { user_id: 9, expires_at_ms: 10_000_000 });
    await cache.userOf("b");
    clock.now += SESSION_STALE_MS;
    src.live.delete("b");
    expect(await cache.userOf("b")).toBeNull();
  });

  it("a due entry is re-checked in the background, one query for all, and dropped if D1 ended it", async () => {
    const src = fakeSource();
    const clock = { now: 1_000 };
    for (const h of ["a", "b", "c"]) src.live.set(h, { user_id: h.charCodeAt(0), expires_at_ms: 100_000_000 });
    const { cache, settle } = cacheOn(src, clock);
    for (const h of ["a", "b", "c"]) await cache.userOf(h);
    clock.now += SESSION_RECHECK_MS;
    // The write-through for "b" was lost: D1 ended it, the hub was never told.
    src.live.delete("b");
    const answers = await Promise.all(["a", "b", "c"].map((h) => cache.userOf(h)));
    // Served from memory while the re-check runs; the orders did not wait for it.
    expect(answers).toEqual([97, 98, 99]);
    await settle();
    expect(src.calls.recheck).toBe(1);
    expect(src.calls.read).toBe(3);
    expect(await cache.userOf("b")).toBeNull();
    expect(await cache.userOf("a")).toBe(97);
    expect(src.calls.read).toBe(4);
  });
});
