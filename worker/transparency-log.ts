/**
 * Reaching the transparency log's sequencer (durable-objects/transparency/). Writes that may
 * queue leaves poke it: money-moving API requests, the quote hubs' settlements and the minute
 * cron. Under tests (APP_ENV "test") nothing pokes: tests drain the log themselves, so no alarm
 * outlives a test file's storage.
 */
import type { Env } from "./env";
import { logError } from "./observability/log";

type LogEnv = Pick<Env, "LOG_SEQUENCER" | "APP_ENV">;

export function logSequencer(env: Pick<Env, "LOG_SEQUENCER">) {
  return env.LOG_SEQUENCER.get(env.LOG_SEQUENCER.idFromName("log"));
}

/** Under tests nothing reaches the log by itself: each test drains it, so no alarm outlives its storage. */
export function logWorksAlone(env: Pick<Env, "APP_ENV">): boolean {
  return env.APP_ENV !== "test";
}

export async function pokeLog(env: LogEnv): Promise<void> {
  if (!logWorksAlone(env)) return;
  try {
    await logSequencer(env).poke();
  } catch (err) {
    // The write it follows has happened; the next poke or the cron appends it.
    logError("log.poke_failed", { err });
  }
}
