CREATE TABLE `notifications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`params_json` text DEFAULT '{}' NOT NULL,
	`dedupe_key` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`read_at_ms` integer,
	CONSTRAINT "notifications_kind_check" CHECK(kind in ('deposit_credited','deposit_rejected','withdrawal_paid','withdrawal_rejected','orders_settled','new_sign_in','limit_reached','operator_message'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_dedupe_unique` ON `notifications` (`user_id`,`dedupe_key`);--> statement-breakpoint
CREATE INDEX `notifications_user_idx` ON `notifications` (`user_id`,`id`);