/**
 * How a quote hub reaches the transparency log (durable-objects/quotes/log-pokes.ts): pokes
 * share LOG_POKE_MS, a burst asks for a hold, and only a hub that held releases.
 */
import { describe, expect, it } from "vitest";
import { LogPokes } from "../../../durable-objects/quotes/log-pokes";

function fakeLog(app_env = "local") {
  const calls: string[] = [];
  const sequencer = { poke: async () => void calls.push("poke"), hold: async () => void calls.push("hold"), release: async () => void calls.push("release") };
  const env = { APP_ENV: app_env, LOG_SEQUENCER: { idFromName: () => ({}), get: () => sequencer } } as never;
  const work: Promise<unknown>[] = [];
  const pokes = new LogPokes(() => env, (w) => void work.push(w));
  return { pokes, calls, settle: () => Promise.all(work) };
}

describe("a hub's calls to the log", () => {
  it("asks a hold for a burst and releases it once it is settled, once", async () => {
    const log = fakeLog();
    log.pokes.holdForBurst();
    log.pokes.holdForBurst();
    log.pokes.burstSettled();
    log.pokes.burstSettled();
    await log.settle();
    expect(log.calls).toEqual(["hold", "hold", "release"]);
  });

  it("never releases a hold it did not ask (another hub's burst goes on held)", async () => {
    const log = fakeLog();
    log.pokes.burstSettled();
    await log.settle();
    expect(log.calls).toEqual([]);
  });

  it("shares one poke among the writes of LOG_POKE_MS", async () => {
    const log = fakeLog();
    log.pokes.soon();
    log.pokes.soon();
    await log.settle();
    expect(log.calls).toEqual(["poke"]);
  });

  it("calls nothing under tests, which drain the log themselves", async () => {
    const log = fakeLog("test");
    log.pokes.holdForBurst();
    log.pokes.burstSettled();
    log.pokes.soon();
    await log.settle();
    expect(log.calls).toEqual([]);
  });
});
