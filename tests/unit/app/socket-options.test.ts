import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { reconnectOptions, RECONNECT_BOUNDS } from "../../../app/lib/socket-options";

/** A random source that answers `values` in turn. */
const sequence = (...values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length];
};

const within = (value: number, [low, high]: readonly [number, number]) => value >= low && value <= high;

describe("page sockets reconnect with jitter (app/lib/socket-options.ts)", () => {
  it("two sockets draw different delays and growth, each within the bounds", () => {
    const a = reconnectOptions(sequence(0.1));
    const b = reconnectOptions(sequence(0.8));
    expect(a.minReconnectionDelay).not.toBe(b.minReconnectionDelay);
    expect(a.reconnectionDelayGrowFactor).not.toBe(b.reconnectionDelayGrowFactor);
    expect(a.minReconnectionDelay).toBe(650);
    expect(b.minReconnectionDelay).toBe(1_700);
    for (const o of [a, b]) expect(o.maxRetries).toBe(Infinity);
  });

  it("every draw of the random source stays within the documented bounds", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (x, y, z) => {
        const o = reconnectOptions(sequence(x, y, z));
        expect(within(o.minReconnectionDelay, RECONNECT_BOUNDS.first_delay_ms)).toBe(true);
        expect(within(o.reconnectionDelayGrowFactor, RECONNECT_BOUNDS.growth)).toBe(true);
        expect(within(o.maxReconnectionDelay, RECONNECT_BOUNDS.max_delay_ms)).toBe(true);
      }),
    );
  });

  it("with the real random source, two sockets do not come back at the same moment", () => {
    const delays = new Set(Array.from({ length: 20 }, () => reconnectOptions().minReconnectionDelay));
    expect(delays.size).toBeGreaterThan(1);
  });

  it("every page socket takes its options from here: none has a fixed delay", () => {
    const lib = new URL("../../../app/", import.meta.url).pathname;
    const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
    const sockets = files(lib).flatMap((f) => [...readFileSync(f, "utf8").matchAll(/new ReconnectingWebSocket\(([^;]*)\);/g)].map((m) => ({ file: f.slice(lib.length), args: m[1] })));
    expect(sockets.map((s) => s.file).sort()).toEqual(["lib/quotes.ts", "lib/service-chat.ts", "lib/service-inbox.ts", "lib/user-channel-socket.ts"]);
    for (const s of sockets) expect(s.args, s.file).toMatch(/reconnectOptions\(\)\)?$/);
  });
});
