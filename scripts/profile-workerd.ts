/**
 * A CPU profile of a running local server's Worker isolate, for finding where a bench's time
 * goes: `WORKERD_INSPECTOR_PORT=9230` on the server (scripts/workerd-serve.ts opens V8's
 * inspector there), load it, then
 *
 *   npx tsx scripts/profile-workerd.ts --port 9230 --seconds 10 [--out tests/.reports/worker.cpuprofile] [--top 25]
 *
 * It records the isolate for the given seconds and prints the functions with the most self time
 * and the share of each group (idle, garbage collection, the Worker's own code, libraries by
 * package). The `.cpuprofile` opens in Chrome DevTools (Performance, "Load profile").
 * Every Durable Object of the Worker runs in the same isolate, so the profile holds them too.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import WebSocket from "ws";

type CallFrame = { functionName: string; url: string; lineNumber: number; columnNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
type Profile = { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };
type Target = { title?: string; webSocketDebuggerUrl: string };

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "9230" },
    seconds: { type: "string", default: "10" },
    out: { type: "string" },
    top: { type: "string", default: "25" },
    target: { type: "string" },
  },
});

/** One DevTools-protocol session over the inspector's socket: `send` answers the command's result. */
async function session(url: string) {
  const ws = new WebSocket(url);
  await new Promise<void>((ok, fail) => {
    ws.once("open", () => ok());
    ws.once("error", fail);
  });
  let next = 1;
  const waiting = new Map<number, { done: (result: unknown) => void; fail: (err: Error) => void }>();
  ws.on("message", (data) => {
    const m = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
    const w = m.id === undefined ? undefined : waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id!);
    if (m.error) w.fail(new Error(`inspector: ${m.error.message}`));
    else w.done(m.result);
  });
  const send = <T>(method: string, params: object = {}) =>
    new Promise<T>((done, fail) => {
      const id = next++;
      waiting.set(id, { done: done as (r: unknown) => void, fail });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}

/** Which group a frame's time belongs to: V8's own entries, the Worker's code, or a library by package. */
function groupOf(frame: CallFrame): string {
  if (frame.functionName === "(idle)") return "(idle)";
  if (frame.functionName === "(garbage collector)") return "(garbage collector)";
  if (frame.functionName === "(program)") return "(program: native and runtime)";
  if (!frame.url) return "(native built-ins)";
  const pkg = frame.url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1];
  return frame.url.replace(/^.*\/(worker|durable-objects|app)\//, "$1/");
}

/** Self time per node, from the samples and the time between them (microseconds). */
function selfTimes(p: Profile): Map<number, number> {
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i + 1] ?? 0)));
  return self;
}

const targets = (await (await fetch(`http://127.0.0.1:${values.port}/json`)).json()) as Target[];
const target = targets.find((t) => !values.target || (t.title ?? t.webSocketDebuggerUrl).includes(values.target)) ?? null;
if (!target) {
  console.error(`no inspector target${values.target ? ` matching "${values.target}"` : ""} on port ${values.port}: ${targets.map((t) => t.title ?? t.webSocketDebuggerUrl).join(", ")}`);
  process.exit(2);
}
const s = await session(target.webSocketDebuggerUrl);
await s.send("Profiler.enable");
await s.send("Profiler.setSamplingInterval", { interval: 200 });
await s.send("Profiler.start");
await new Promise((r) => setTimeout(r, Number(values.seconds) * 1000));
const { profile } = await s.send<{ profile: Profile }>("Profiler.stop");
s.close();
if (values.out) writeFileSync(values.out, JSON.stringify(profile));

const self = selfTimes(profile);
const total_us = [...self.values()].reduce((a, b) => a + b, 0);
const busy_us = total_us - profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").reduce((a, n) => a + (self.get(n.id) ?? 0), 0);
const byFunction = new Map<string, number>();
const byGroup = new Map<string, number>();
for (const n of profile.nodes) {
  const t = self.get(n.id) ?? 0;
  if (!t) continue;
  const f = n.callFrame;
  const group = groupOf(f);
  const name = `${f.functionName || "(anonymous)"}  ${group}:${f.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + t);
  byGroup.set(group, (byGroup.get(group) ?? 0) + t);
}
const pct = (us: number, of: number) => `${((100 * us) / of).toFixed(1).padStart(5)} %`;
console.log(`${target.title ?? target.webSocketDebuggerUrl}: ${(total_us / 1e6).toFixed(1)} s recorded, ${(busy_us / 1e6).toFixed(1)} s busy (${pct(busy_us, total_us).trim()})`);
console.log("\nby group (share of busy time):");
for (const [g, t] of [...byGroup].filter(([g]) => g !== "(idle)").sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${pct(t, busy_us)}  ${g}`);
console.log(`\nfunctions by self time (share of busy time), top ${values.top}:`);
for (const [f, t] of [...byFunction].filter(([f]) => !f.startsWith("(idle)")).sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) console.log(`  ${pct(t, busy_us)}  ${f}`);
