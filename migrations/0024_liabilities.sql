CREATE TABLE `liability_snapshots` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`taken_at_ms` integer NOT NULL,
	`total_micro` integer NOT NULL,
	`root_hash` text NOT NULL,
	`note` text NOT NULL,
	`through_transfer_id` integer NOT NULL,
	`accounts` integer NOT NULL,
	`taken_by` text NOT NULL
);
--> statement-breakpoint
-- hand-written below: a published snapshot is never edited.
CREATE TRIGGER liability_snapshots_append_only BEFORE UPDATE ON liability_snapshots
BEGIN
  SELECT RAISE(ABORT, 'log_append_only');
END;
