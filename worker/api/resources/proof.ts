/**
 * `/api/proof/*`: the transparency log, read (docs/transparency.md). Public: the verifier key,
 * the latest checkpoint and every one before it, consistency proofs and the raw tiles. Signed
 * in: inclusion proofs of one's own orders and transfers (operators: anyone's) and one's whole
 * statement. Every proof is made from the published tiles, never from the leaves table, so what
 * the API proves is what anyone reading the bucket would find. Checkpoints carry the witnesses'
 * cosignature lines; with witnesses configured, the latest is the newest a quorum cosigned
 * (decision 108).
 */
import { and, asc, desc, eq, sql } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { z } from "zod";
import { ledger_accounts, ledger_transfers, liability_snapshots, log_checkpoints, log_leaves, orders } from "../../db/schema";
import { checkSnapshots } from "../../domain/transparency/liabilities";
import { actingOperator } from "../../domain/identity/operators";
import { resolveSession } from "../../domain/identity/session";
import { consistencyProof, inclusionProof } from "../../domain/transparency/merkle";
import { readHandovers } from "../../domain/transparency/sequencer";
import { tileReader } from "../../domain/transparency/tiles";
import { b64encode } from "../../domain/transparency/verify";
import { cosignaturesBetween, latestPublished, latestSigned, served, withCosignatures, witnessConfig } from "../../domain/transparency/witnesses";
import { logSequencer } from "../../../durable-objects/transparency/log-api";
import { requireOperator, tokenFrom } from "../middleware/auth";
import { auditInsert } from "../../domain/audit/log";
import { ApiError, ok, read } from "../envelope";
import { id, int, pagination } from "../fields";
import type { AppEnv } from "../types";
import { logError } from "../../observability/log";

const Inclusion = z.object({ order_id: id().optional(), transfer_id: id().optional() });
const Consistency = z.object({ first: int({ min: 0, max: Number.MAX_SAFE_INTEGER }), second: int({ min: 0, max: Number.MAX_SAFE_INTEGER }) });

/** The bucket as the tile reader reads it. */
function tiles(c: Context<AppEnv>) {
  return async (path: string) => {
    const o = await c.env.LOG.get(path);
    return o ? new Uint8Array(await o.arrayBuffer()) : null;
  };
}

/** The deployment's witnesses; a malformed setting is a log that is not configured. */
function witnesses(c: Context<AppEnv>) {
  try {
    return witnessConfig(c.env);
  } catch (err) {
    logError("log.witnesses_misconfigured", { err });
    throw new ApiError("errors.log_not_configured", 503);
  }
}

/** The checkpoint the log stands behind (witnessed by a quorum, when there are witnesses), as served. */
async function latestCheckpoint(c: Context<AppEnv>) {
  const db = c.get("db");
  const latest = await latestPublished(db, witnesses(c));
  return latest ? served(db, latest) : undefined;
}

/** The caller: a user (own records) or an operator (any); neither is 401. */
async function reader(c: Context<AppEnv>): Promise<{ user_id: number | null }> {
  const token = tokenFrom(c.req.raw.headers);
  const user = await resolveSession(c.get("db"), "user", { token }, Date.now());
  if (user.status === "ok" && user.subject) return { user_id: user.subject.id };
  const op = await resolveSession(c.get("db"), "operator", { token }, Date.now());
  if (actingOperator(op)) return { user_id: null };
  throw new ApiError("errors.unauthorized", 401);
}

/** Does this transfer touch the user's accounts? */
async function ownsTransfer(c: Context<AppEnv>, transfer_id: number, user_id: number): Promise<boolean> {
  const [row] = await c.get("db").all<{ n: number }>(sql`
    SELECT COUNT(*) AS n FROM ${ledger_transfers} t JOIN ${ledger_accounts} a ON a.id IN (t.debit_account_id, t.credit_account_id)
    WHERE t.id = ${transfer_id} AND a.user_id = ${user_id}`);
  return Number(row?.n ?? 0) > 0;
}

export const proofApi = new Hono<AppEnv>()
  .on(["GET", "POST"], "/key", async (c) => {
    const identity = await logSequencer(c.env).identity();
    if (!identity) throw new ApiError("errors.log_not_configured", 503);
    const config = witnesses(c);
    // Every handover (decision 136): a verifier that pinned an older key follows them to this one.
    const handovers = await readHandovers(async (path) => {
      const o = await c.env.LOG.get(path);
      return o ? new Uint8Array(await o.arrayBuffer()) : null;
    });
    const key_history = [...(handovers.length ? [handovers[0].from] : []), ...handovers.map((h) => h.to)];
    return ok(c, { ...identity, witnesses: config.witnesses.map((w) => w.vkey), quorum: config.quorum, key_history, handovers: handovers.map((h) => ({ tree_size: h.tree_size, note: h.note })) });
  })
  .on(["GET", "POST"], "/checkpoint", async (c) => {
    const latest = await latestCheckpoint(c);
    return ok(c, { note: latest?.note ?? "", tree_size: latest?.tree_size ?? 0, created_at_ms: latest?.created_at_ms ?? null });
  })
  .on(["GET", "POST"], "/checkpoints", async (c) => {
    const page = read(c, z.object(pagination));
    const db = c.get("db");
    const list = await db.query.log_checkpoints.findMany({ orderBy: asc(log_checkpoints.tree_size), limit: page.row, offset: (page.page_no - 1) * page.row });
    const [{ total }] = await db.all<{ total: number }>(sql`SELECT COUNT(*) AS total FROM log_checkpoints`);
    const lines = list.length ? await cosignaturesBetween(db, list[0].tree_size, list[list.length - 1].tree_size) : new Map<number, string[]>();
    return ok(c, { list: list.map((k) => ({ tree_size: k.tree_size, note: withCosignatures(k.note, lines.get(k.tree_size) ?? []), created_at_ms: k.created_at_ms })), total: Number(total) });
  })
  .on(["GET", "POST"], "/consistency", async (c) => {
    const { first, second } = read(c, Consistency);
    // Between any signed checkpoints, witnessed or not yet: that is how a witness is convinced.
    const latest = await latestSigned(c.get("db"));
    if (first > second || second > (latest?.tree_size ?? 0)) throw new ApiError("errors.invalid_field", 400, {}, { field: "second" });
    const proof = await consistencyProof(first, second, tileReader(tiles(c), second));
    return ok(c, { first, second, proof: proof.map(b64encode) });
  })
  .post("/inclusion", async (c) => {
    const who = await reader(c);
    const body = read(c, Inclusion);
    if ((body.order_id === undefined) === (body.transfer_id === undefined)) throw new ApiError("errors.incomplete", 200, {}, { field: "order_id" });
    const db = c.get("db");
    let kind: "order" | "transfer";
    let ref: number;
    if (body.order_id !== undefined) {
      const order = await db.query.orders.findFirst({ columns: { id: true, user_id: true }, where: eq(orders.id, body.order_id) });
      if (!order || (who.user_id !== null && order.user_id !== who.user_id)) throw new ApiError("errors.not_found", 404);
      [kind, ref] = ["order", order.id];
    } else {
      if (who.user_id !== null && !(await ownsTransfer(c, body.transfer_id!, who.user_id))) throw new ApiError("errors.not_found", 404);
      [kind, ref] = ["transfer", body.transfer_id!];
    }
    const leaf = await db.query.log_leaves.findFirst({ where: and(eq(log_leaves.kind, kind), eq(log_leaves.ref_id, String(ref))) });
    const latest = await latestCheckpoint(c);
    if (!leaf || !latest || latest.tree_size <= leaf.leaf_index) throw new ApiError("errors.log_pending");
    const proof = await inclusionProof(leaf.leaf_index, latest.tree_size, tileReader(tiles(c), latest.tree_size));
    return ok(c, { leaf: leaf.leaf, leaf_index: leaf.leaf_index, tree_size: latest.tree_size, proof: proof.map(b64encode), checkpoint: latest.note });
  })
  .post("/statement", async (c) => {
    const who = await reader(c);
    if (who.user_id === null) throw new ApiError("errors.unauthorized", 401);
    const page = read(c, z.object(pagination));
    const db = c.get("db");
    const latest = await latestCheckpoint(c);
    const size = latest?.tree_size ?? 0;
    const rows = await db.query.log_leaves.findMany({
      where: and(eq(log_leaves.user_id, who.user_id), eq(log_leaves.kind, "transfer"), sql`${log_leaves.leaf_index} < ${size}`),
      orderBy: desc(log_leaves.leaf_index),
      limit: page.row,
      offset: (page.page_no - 1) * page.row,
    });
    const [{ total }] = await db.all<{ total: number }>(sql`SELECT COUNT(*) AS total FROM log_leaves WHERE user_id = ${who.user_id} AND kind = 'transfer' AND leaf_index < ${size}`);
    const read_ = tileReader(tiles(c), size);
    const list = await Promise.all(rows.map(async (r) => ({ transfer_id: Number(r.ref_id), leaf: r.leaf, leaf_index: r.leaf_index, proof: (await inclusionProof(r.leaf_index, size, read_)).map(b64encode) })));
    return ok(c, { checkpoint: latest?.note ?? "", tree_size: size, list, total: Number(total) });
  })
  // Proof of liabilities: the caller's leaf and path in the latest snapshot, checked in the browser.
  .post("/liabilities", async (c) => {
    const who = await reader(c);
    if (who.user_id === null) throw new ApiError("errors.unauthorized", 401);
    const entry = await logSequencer(c.env).liabilitiesEntry(who.user_id);
    if (!entry) throw new ApiError("errors.liabilities_not_included");
    const s = entry.snapshot;
    return ok(c, { note: s.note, taken_at_ms: s.taken_at_ms, total_micro: String(s.total_micro), root_hash: s.root_hash, leaf: entry.leaf, path: entry.path });
  })
  .get("/tile/*", async (c) => {
    const path = new URL(c.req.url).pathname.replace(/^\/api\/proof\//, "");
    if (!/^tile\/(\d+|entries)(\/x\d{3})*\/\d{3}(\.p\/\d{1,3})?$/.test(path)) throw new ApiError("errors.not_found", 404);
    const o = await c.env.LOG.get(path);
    if (!o) throw new ApiError("errors.not_found", 404);
    // Published tiles never change (a grown partial tile gets a new path): cache them for good.
    return new Response(o.body, { headers: { "content-type": "application/octet-stream", "cache-control": "public, max-age=31536000, immutable", "access-control-allow-origin": "*" } });
  });

/** `/api/admin/proof/liabilities`: an operator takes a proof-of-liabilities snapshot now (audited). */
export const adminProofApi = new Hono<AppEnv>()
  .use("*", requireOperator)
  // The latest snapshots, each against the ledger, beside the addresses that hold the reserves.
  .on(["GET", "POST"], "/liabilities/list", async (c) => {
    const db = c.get("db");
    const snapshots = (await checkSnapshots(db)).slice(-10).reverse();
    const rows = new Map((await db.query.liability_snapshots.findMany({ orderBy: desc(liability_snapshots.id), limit: 10 })).map((r) => [r.id, r]));
    const addresses = await db.all<{ chain: string; address: string }>(sql`SELECT chain, address FROM deposit_addresses ORDER BY id LIMIT 200`);
    const [{ n }] = await db.all<{ n: number }>(sql`SELECT COUNT(*) AS n FROM deposit_addresses`);
    return ok(c, {
      snapshots: snapshots.map((s) => ({ id: s.id, taken_at_ms: rows.get(s.id)?.taken_at_ms ?? null, total_micro: s.total_micro, ledger_micro: s.ledger_micro, accounts: rows.get(s.id)?.accounts ?? 0, taken_by: rows.get(s.id)?.taken_by ?? "" })),
      addresses,
      addresses_total: Number(n),
    });
  })
  .post("/liabilities", async (c) => {
    const snapshot = await logSequencer(c.env).takeLiabilities(c.get("operator").account);
    if (!snapshot) throw new ApiError("errors.log_not_configured", 503);
    await auditInsert(c.get("db"), { operator_id: c.get("operator").id, action: "proof.liabilities", target: String(snapshot.id), data: { total_micro: snapshot.total_micro, accounts: snapshot.accounts } }, Date.now());
    return ok(c, { id: snapshot.id, taken_at_ms: snapshot.taken_at_ms, total_micro: String(snapshot.total_micro), root_hash: snapshot.root_hash, accounts: snapshot.accounts, note: snapshot.note });
  });
