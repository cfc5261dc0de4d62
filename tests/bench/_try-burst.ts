import { freePort, prepareState, stopAllServers } from "./lib";
import { benchSettlementBurst } from "./trades";
try {
  await prepareState(".wrangler/bench-burst-try", { build: false });
  const r = await benchSettlementBurst({ port: await freePort(), stateDir: ".wrangler/bench-burst-try", users: 100, perUser: 100, lead_ms: Number(process.env.LEAD ?? 30_000) });
  console.log(r.verdicts.join("\n"));
} finally {
  await stopAllServers();
  setTimeout(() => process.exit(), 1000).unref();
}
