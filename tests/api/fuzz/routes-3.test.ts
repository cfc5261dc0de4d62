import { describe, expect, it } from "vitest";
import { checkLedger } from "../../../worker/domain/ledger/check";
import { db, seed } from "../helpers";
import { apiRoutes, fuzzRoutes, identities, RUNS, shard, SHARDS } from "./fuzz";

describe(`fuzz: shard 3 of ${SHARDS}`, () => {
  it(`sends ${RUNS} bad requests to each route of the shard: no 5xx, no stack trace, the envelope, no ledger drift`, async () => {
    await seed();
    const { who, otherIds } = await identities();
    const routes = shard(3);
    expect(routes.length).toBeGreaterThan(apiRoutes().length / SHARDS - 1);
    const sent = await fuzzRoutes(routes, who, otherIds);
    expect(sent).toBe(routes.length * RUNS);
    const ledger = await checkLedger(db);
    expect(ledger.drift).toEqual([]);
    expect(ledger.ok).toBe(true);
  }, 600_000);
});
