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

export async function pokeLog(env: LogEnv): Promise<void> {
  if (env.APP_ENV === "test") return;
  try {
    await logSequencer(env).poke();
  } catch (err) {
    // The write it follows has happened; the next poke or the cron appends it.
    logError("log.poke_failed", { err });
  }
}

/** The daily proof-of-liabilities snapshot (the cron asks every minute; the object takes one a day). */
export async function liabilitiesIfDue(env: LogEnv): Promise<void> {
  if (env.APP_ENV === "test") return;
  try {
    await logSequencer(env).liabilitiesIfDue();
  } catch (err) {
    logError("log.liabilities_failed", { err });
  }
}
