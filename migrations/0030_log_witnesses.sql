CREATE TABLE `log_cosignatures` (
	`tree_size` integer NOT NULL,
	`witness` text NOT NULL,
	`key_id` text NOT NULL,
	`timestamp_s` integer NOT NULL,
	`line` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	PRIMARY KEY(`tree_size`, `witness`, `key_id`)
);
--> statement-breakpoint
CREATE INDEX `log_cosignatures_witness_idx` ON `log_cosignatures` (`witness`,`key_id`,`tree_size`);--> statement-breakpoint
-- hand-written below (decision 107): nothing published by the log is deleted, and nothing it
-- will publish is edited while it waits. UPDATE was already refused on the leaves, the
-- checkpoints and the liabilities snapshots (0023, 0024); DELETE now is too, on every log table.
CREATE TRIGGER log_leaves_no_delete BEFORE DELETE ON log_leaves
BEGIN
  SELECT RAISE(ABORT, 'log_append_only');
END;
--> statement-breakpoint
CREATE TRIGGER log_checkpoints_no_delete BEFORE DELETE ON log_checkpoints
BEGIN
  SELECT RAISE(ABORT, 'log_append_only');
END;
--> statement-breakpoint
CREATE TRIGGER liability_snapshots_no_delete BEFORE DELETE ON liability_snapshots
BEGIN
  SELECT RAISE(ABORT, 'log_append_only');
END;
--> statement-breakpoint
-- The inbox holds the seed commitments and reveals verbatim until they become leaves, and a
-- record's place in the log is its row's seq: a row is never edited or taken out.
CREATE TRIGGER log_queue_no_update BEFORE UPDATE ON log_queue
BEGIN
  SELECT RAISE(ABORT, 'log_append_only');
END;
--> statement-breakpoint
CREATE TRIGGER log_queue_no_delete BEFORE DELETE ON log_queue
BEGIN
  SELECT RAISE(ABORT, 'log_append_only');
END;
--> statement-breakpoint
CREATE TRIGGER log_cosignatures_no_update BEFORE UPDATE ON log_cosignatures
BEGIN
  SELECT RAISE(ABORT, 'log_append_only');
END;
--> statement-breakpoint
CREATE TRIGGER log_cosignatures_no_delete BEFORE DELETE ON log_cosignatures
BEGIN
  SELECT RAISE(ABORT, 'log_append_only');
END;
