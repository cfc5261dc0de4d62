/**
 * Identity benches: what one password hash costs, and what one login request costs
 * end to end inside workerd, next to a request that does no hashing at all.
 */
import { KDF_PARAMS, hashPassword, verifyPassword } from "../../worker/domain/identity/password";
import { clientIp, ms, postJson, summarize, table, timed, timedRequest, type Row, type Server, type TimedResponse } from "./lib";

export type { Row } from "./lib";

const DEMO = { account: "demo", password: "demo12345" } as const;

/**
 * Node, in process: N hashes and N verifies with the project's own functions. The code is
 * pure JS (@noble/hashes, no WebAssembly, no native addon), so it is the same code V8 runs
 * inside workerd; the end-to-end bench below shows what that costs there.
 */
export async function benchPasswordHash(n = 10): Promise<Row[]> {
  console.log(`\n== password hash in Node (argon2id m=${KDF_PARAMS.m} KiB, t=${KDF_PARAMS.t}, p=${KDF_PARAMS.p}), ${n} runs each`);
  console.log("   (same pure-JS @noble/hashes code that the Worker runs in workerd / V8)");

  // One untimed run first: the first call pays for JIT compilation, which a long-lived
  // isolate pays only once.
  const stored = hashPassword(DEMO.password);

  const hashMs: number[] = [];
  for (let i = 0; i < n; i++) hashMs.push((await timed(() => hashPassword(DEMO.password))).ms);

  const verifyMs: number[] = [];
  let wrong = 0;
  for (let i = 0; i < n; i++) {
    const { ms: t, value } = await timed(() => verifyPassword(DEMO.password, stored));
    verifyMs.push(t);
    if (!value) wrong++;
  }

  const rows: Row[] = [
    { name: "hashPassword (Node)", stats: summarize(hashMs), errors: 0 },
    { name: "verifyPassword (Node)", stats: summarize(verifyMs), errors: wrong },
  ];
  console.log(
    table(
      ["", "n", "mean", "p50", "min", "max", "errors"],
      rows.map((r) => [r.name, String(r.stats.n), ms(r.stats.mean), ms(r.stats.p50), ms(r.stats.min), ms(r.stats.max), String(r.errors)]),
    ),
  );
  return rows;
}

/**
 * workerd, over HTTP on 127.0.0.1: sequential requests (one at a time, so each figure is the
 * latency of one request, not queueing). Successful logins, then /api/health as the baseline
 * of a request that does no hashing, then failed logins.
 */
export async function benchLoginRequests(server: Server, opts: { logins?: number; health?: number; failures?: number } = {}): Promise<Row[]> {
  const logins = opts.logins ?? 50;
  const health = opts.health ?? 200;
  const failures = opts.failures ?? 4;
  const loginUrl = `${server.baseUrl}/api/user/login`;
  const healthUrl = `${server.baseUrl}/api/health`;
  console.log(`\n== requests to wrangler dev (workerd) at ${server.baseUrl}, sequential`);

  // Warm-up, not measured: the first requests of a fresh isolate pay for module evaluation,
  // JIT and the D1 connection; the first unknown-account login also computes the dummy hash.
  for (let i = 0; i < 3; i++) await timedRequest(healthUrl);
  // Every login from its own simulated address (see clientIp): the per-address limit is not
  // what this measures.
  let ip = 0;
  const signIn = (body: unknown) => postJson(loginUrl, body, clientIp(ip++));
  for (let i = 0; i < 3; i++) await signIn(DEMO);
  await signIn({ account: `bench_warm_${Date.now()}`, password: "nope-nope-nope" });

  const ok = await series(logins, () => signIn(DEMO), (r) => r.status === 200 && r.body?.code === 1);
  const base = await series(health, () => timedRequest(healthUrl), (r) => r.status === 200 && r.body?.code === 1);

  // A fresh account name each time: every attempt is a first failure for its key, so the
  // 5-failure lock never kicks in, and each still costs one argon2id (against the dummy hash).
  const run = Date.now().toString(36);
  let k = 0;
  const unknown = await series(
    failures,
    () => signIn({ account: `bench_${run}_${k++}`, password: "wrong-password" }),
    (r) => failedWith(r, "login_failed"),
  );

  // The real account with a wrong password: fewer attempts than the lock threshold (5), then
  // one good login clears the counter so the state is left as it was.
  const wrongPw = await series(
    Math.min(failures, 4),
    () => signIn({ account: DEMO.account, password: "wrong-password" }),
    (r) => failedWith(r, "login_failed"),
  );
  await signIn(DEMO);

  const rows: Row[] = [
    { name: "POST /api/user/login (ok)", stats: summarize(ok.ms), errors: ok.errors },
    { name: "GET /api/health", stats: summarize(base.ms), errors: base.errors },
    { name: "POST login (unknown account)", stats: summarize(unknown.ms), errors: unknown.errors },
    { name: "POST login (wrong password)", stats: summarize(wrongPw.ms), errors: wrongPw.errors },
  ];
  console.log(
    table(
      ["", "n", "p50", "p95", "p99", "mean", "min", "max", "errors"],
      rows.map((r) => [
        r.name,
        String(r.stats.n),
        ms(r.stats.p50),
        ms(r.stats.p95),
        ms(r.stats.p99),
        ms(r.stats.mean),
        ms(r.stats.min),
        ms(r.stats.max),
        String(r.errors),
      ]),
    ),
  );
  const [login, h] = rows;
  console.log(
    `login / health: p50 ${(login.stats.p50 / h.stats.p50).toFixed(1)}x, mean ${(login.stats.mean / h.stats.mean).toFixed(1)}x` +
      ` (login - health p50 = ${ms(login.stats.p50 - h.stats.p50)} ms: about one argon2id verify plus a D1 batch)`,
  );
  if (ok.firstError) console.log(`first login error: ${ok.firstError}`);
  return rows;
}

/** A `{code: 0}` envelope with this `data.error` reason. */
function failedWith(r: TimedResponse, reason: string): boolean {
  return r.status === 200 && r.body?.code === 0 && (r.body.data as { error?: string } | null)?.error === reason;
}

/** `count` requests one after another; an unexpected answer counts as an error, its time is still kept. */
async function series(
  count: number,
  send: () => Promise<TimedResponse>,
  expected: (r: TimedResponse) => boolean,
): Promise<{ ms: number[]; errors: number; firstError?: string }> {
  const times: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  for (let i = 0; i < count; i++) {
    try {
      const r = await send();
      times.push(r.ms);
      if (!expected(r)) {
        errors++;
        firstError ??= `HTTP ${r.status} ${JSON.stringify(r.body)}`;
      }
    } catch (err) {
      // A network failure or a 15 s timeout: no meaningful time, only an error.
      errors++;
      firstError ??= String(err);
    }
  }
  return { ms: times, errors, firstError };
}
