import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * The transparency log's inbox: triggers in the migration add a row for every ledger transfer
 * and every order that leaves "open", inside the same statement that writes them, so no money
 * path has to remember the log. The sequencer (durable-objects/transparency/) reads it in `seq`
 * order and gives each row its leaf index.
 */
export const log_queue = sqliteTable(
  "log_queue",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    kind: text("kind", { enum: ["transfer", "order", "sim_commit", "sim_reveal"] }).notNull(),
    ref_id: text("ref_id").notNull(),
    /** For kinds whose leaf is not built from rows: the exact leaf text. */
    payload: text("payload"),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [uniqueIndex("log_queue_once").on(t.kind, t.ref_id)],
);

/**
 * Every leaf the log holds, by index, with the exact text that was hashed: what the API proves
 * inclusion of. The published copy is in R2 (entry bundles); a row changed here no longer
 * matches its proof, so changing it gains nothing.
 */
export const log_leaves = sqliteTable(
  "log_leaves",
  {
    leaf_index: integer("leaf_index").primaryKey(),
    queue_seq: integer("queue_seq").notNull(),
    kind: text("kind").notNull(),
    ref_id: text("ref_id").notNull(),
    /** Whose record it is (null for platform-only records), so a user's leaves are found fast. */
    user_id: integer("user_id"),
    leaf: text("leaf").notNull(),
  },
  (t) => [uniqueIndex("log_leaves_record").on(t.kind, t.ref_id), uniqueIndex("log_leaves_seq").on(t.queue_seq), index("log_leaves_user_idx").on(t.user_id, t.leaf_index)],
);

/** Every checkpoint the log signed, kept and listed. */
export const log_checkpoints = sqliteTable("log_checkpoints", {
  tree_size: integer("tree_size").primaryKey(),
  root_hash: text("root_hash").notNull(),
  note: text("note").notNull(),
  created_at_ms: integer("created_at_ms").notNull(),
});

/**
 * Witness cosignatures (C2SP tlog-cosignature v1) of the log's checkpoints, as the witnesses
 * answered them: each line was verified against the witness's configured key before it was
 * kept. A checkpoint is served with its lines appended; one with a quorum of them is what the
 * API calls the latest (decision 108). Append-only by trigger, like every log table.
 */
export const log_cosignatures = sqliteTable(
  "log_cosignatures",
  {
    tree_size: integer("tree_size").notNull(),
    /** The witness's key name and key id (hex), as its signature line names them. */
    witness: text("witness").notNull(),
    key_id: text("key_id").notNull(),
    /** The cosignature's own time (POSIX seconds), from the signed line. */
    timestamp_s: integer("timestamp_s").notNull(),
    /** The signature line as the witness sent it, without its newline. */
    line: text("line").notNull(),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tree_size, t.witness, t.key_id] }), index("log_cosignatures_witness_idx").on(t.witness, t.key_id, t.tree_size)],
);

/**
 * Proof-of-liabilities snapshots: the total of every user's obligation at one moment (all
 * transfers up to `through_transfer_id`), the Merkle sum tree's root and the signed note. The
 * leaves (pseudonym, balance, nonce: no user id) are kept in the log's bucket, never served whole.
 */
export const liability_snapshots = sqliteTable("liability_snapshots", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  taken_at_ms: integer("taken_at_ms").notNull(),
  total_micro: integer("total_micro").notNull(),
  root_hash: text("root_hash").notNull(),
  note: text("note").notNull(),
  through_transfer_id: integer("through_transfer_id").notNull(),
  accounts: integer("accounts").notNull(),
  taken_by: text("taken_by").notNull(),
});
