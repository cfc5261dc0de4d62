CREATE TABLE `log_checkpoints` (
	`tree_size` integer PRIMARY KEY NOT NULL,
	`root_hash` text NOT NULL,
	`note` text NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `log_leaves` (
	`leaf_index` integer PRIMARY KEY NOT NULL,
	`queue_seq` integer NOT NULL,
	`kind` text NOT NULL,
	`ref_id` text NOT NULL,
	`user_id` integer,
	`leaf` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `log_leaves_record` ON `log_leaves` (`kind`,`ref_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `log_leaves_seq` ON `log_leaves` (`queue_seq`);--> statement-breakpoint
CREATE INDEX `log_leaves_user_idx` ON `log_leaves` (`user_id`,`leaf_index`);--> statement-breakpoint
CREATE TABLE `log_queue` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`ref_id` text NOT NULL,
	`payload` text,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `log_queue_once` ON `log_queue` (`kind`,`ref_id`);--> statement-breakpoint
-- hand-written below: the log's inbox is filled inside the statements that write the records.
CREATE TRIGGER log_queue_kind BEFORE INSERT ON log_queue
WHEN NEW.kind NOT IN ('transfer', 'order', 'sim_commit', 'sim_reveal')
BEGIN
  SELECT RAISE(ABORT, 'log_queue_kind');
END;
--> statement-breakpoint
CREATE TRIGGER log_queue_transfer AFTER INSERT ON ledger_transfers
BEGIN
  INSERT INTO log_queue (kind, ref_id, created_at_ms) VALUES ('transfer', CAST(NEW.id AS TEXT), NEW.created_at_ms);
END;
--> statement-breakpoint
CREATE TRIGGER log_queue_order AFTER UPDATE OF status ON orders
WHEN OLD.status = 'open' AND NEW.status <> 'open'
BEGIN
  INSERT INTO log_queue (kind, ref_id, created_at_ms) VALUES ('order', CAST(NEW.id AS TEXT), COALESCE(NEW.settled_at_ms, 0));
END;
--> statement-breakpoint
-- The published history cannot be edited in place.
CREATE TRIGGER log_leaves_append_only BEFORE UPDATE ON log_leaves
BEGIN
  SELECT RAISE(ABORT, 'log_append_only');
END;
--> statement-breakpoint
CREATE TRIGGER log_checkpoints_append_only BEFORE UPDATE ON log_checkpoints
BEGIN
  SELECT RAISE(ABORT, 'log_append_only');
END;
