/**
 * `APP_ENV`, the one switch that says what kind of run this is, as an allow-list (decision 122):
 * "production" and "demo" are deployments; "local" (`npm start`) and "test" are runs on a
 * developer's or CI's machine. Test switches, development keys and plain-http cookies exist
 * only in a local run: a typo ("prod") is not a local run, and the Worker refuses to serve it.
 */
export const APP_ENVS = ["local", "test", "demo", "production"] as const;
export type AppEnvName = (typeof APP_ENVS)[number];

/** The APP_ENV when it is one of the four, else null. */
export function appEnvOf(env: { APP_ENV?: string }): AppEnvName | null {
  return (APP_ENVS as readonly string[]).includes(env.APP_ENV ?? "") ? (env.APP_ENV as AppEnvName) : null;
}

/** A run on a developer's or CI's machine, where test switches and development keys may apply. */
export function isLocalRun(env: { APP_ENV?: string }): boolean {
  const name = appEnvOf(env);
  return name === "local" || name === "test";
}
