CREATE TABLE `adjustments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`direction` text NOT NULL,
	`amount_micro` integer NOT NULL,
	`reason` text NOT NULL,
	`status` text NOT NULL,
	`requested_by` integer NOT NULL,
	`decided_by` integer,
	`created_at_ms` integer NOT NULL,
	`decided_at_ms` integer,
	CONSTRAINT "adjustments_amount_positive" CHECK("adjustments"."amount_micro" > 0),
	CONSTRAINT "adjustments_four_eyes" CHECK("adjustments"."decided_by" IS NULL OR "adjustments"."decided_by" <> "adjustments"."requested_by")
);
--> statement-breakpoint
CREATE INDEX `adjustments_status_idx` ON `adjustments` (`status`,`id`);--> statement-breakpoint
CREATE TABLE `bank_cards` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`bank` text NOT NULL,
	`card_number` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`deleted_at_ms` integer
);
--> statement-breakpoint
CREATE INDEX `bank_cards_user_idx` ON `bank_cards` (`user_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `bank_cards_live_unique` ON `bank_cards` (`user_id`,`card_number`) WHERE "bank_cards"."deleted_at_ms" IS NULL;--> statement-breakpoint
CREATE TABLE `deposit_channels` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`currency` text NOT NULL,
	`chain` text NOT NULL,
	`address` text NOT NULL,
	`min_amount_micro` integer NOT NULL,
	`enabled` integer DEFAULT 1 NOT NULL,
	`sort` integer DEFAULT 0 NOT NULL,
	`created_at_ms` integer NOT NULL,
	CONSTRAINT "deposit_channels_min_positive" CHECK("deposit_channels"."min_amount_micro" > 0)
);
--> statement-breakpoint
CREATE TABLE `deposits` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`channel_id` integer,
	`destination` text NOT NULL,
	`amount_micro` integer NOT NULL,
	`tx_hash` text DEFAULT '' NOT NULL,
	`image_id` text NOT NULL,
	`status` text NOT NULL,
	`reason` text DEFAULT '' NOT NULL,
	`request_key` text NOT NULL,
	`request_hash` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`decided_at_ms` integer,
	CONSTRAINT "deposits_amount_positive" CHECK("deposits"."amount_micro" > 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deposits_request_unique` ON `deposits` (`user_id`,`request_key`);--> statement-breakpoint
CREATE INDEX `deposits_user_idx` ON `deposits` (`user_id`,`id`);--> statement-breakpoint
CREATE INDEX `deposits_status_idx` ON `deposits` (`status`,`id`);--> statement-breakpoint
CREATE TABLE `transitions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`entity` text NOT NULL,
	`entity_id` integer NOT NULL,
	`from_state` text NOT NULL,
	`to_state` text NOT NULL,
	`actor_kind` text NOT NULL,
	`actor_id` integer,
	`reason` text DEFAULT '' NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `transitions_once` ON `transitions` (`entity`,`entity_id`,`from_state`);--> statement-breakpoint
CREATE TABLE `uploads` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`r2_key` text NOT NULL,
	`content_type` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`width` integer NOT NULL,
	`height` integer NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `uploads_user_idx` ON `uploads` (`user_id`);--> statement-breakpoint
CREATE TABLE `wallets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`currency` text NOT NULL,
	`chain` text NOT NULL,
	`address` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`deleted_at_ms` integer
);
--> statement-breakpoint
CREATE INDEX `wallets_user_idx` ON `wallets` (`user_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `wallets_live_unique` ON `wallets` (`user_id`,`chain`,`address`) WHERE "wallets"."deleted_at_ms" IS NULL;--> statement-breakpoint
CREATE TABLE `withdrawal_rules` (
	`channel` text PRIMARY KEY NOT NULL,
	`fee_fixed_micro` integer NOT NULL,
	`fee_rate_bp` integer NOT NULL,
	`min_amount_micro` integer NOT NULL,
	`enabled` integer DEFAULT 1 NOT NULL,
	`updated_at_ms` integer NOT NULL,
	CONSTRAINT "withdrawal_rules_fee_non_negative" CHECK("withdrawal_rules"."fee_fixed_micro" >= 0 AND "withdrawal_rules"."fee_rate_bp" >= 0 AND "withdrawal_rules"."fee_rate_bp" <= 10000),
	CONSTRAINT "withdrawal_rules_min_positive" CHECK("withdrawal_rules"."min_amount_micro" > 0)
);
--> statement-breakpoint
CREATE TABLE `withdrawals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`channel` text NOT NULL,
	`destination` text NOT NULL,
	`amount_micro` integer NOT NULL,
	`fee_micro` integer NOT NULL,
	`actual_micro` integer NOT NULL,
	`status` text NOT NULL,
	`tx_ref` text DEFAULT '' NOT NULL,
	`reason` text DEFAULT '' NOT NULL,
	`request_key` text NOT NULL,
	`request_hash` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`decided_at_ms` integer,
	CONSTRAINT "withdrawals_amounts" CHECK("withdrawals"."amount_micro" > 0 AND "withdrawals"."fee_micro" >= 0 AND "withdrawals"."actual_micro" > 0 AND "withdrawals"."fee_micro" + "withdrawals"."actual_micro" = "withdrawals"."amount_micro")
);
--> statement-breakpoint
CREATE UNIQUE INDEX `withdrawals_request_unique` ON `withdrawals` (`user_id`,`request_key`);--> statement-breakpoint
CREATE INDEX `withdrawals_user_idx` ON `withdrawals` (`user_id`,`id`);--> statement-breakpoint
CREATE INDEX `withdrawals_status_idx` ON `withdrawals` (`status`,`id`);--> statement-breakpoint
ALTER TABLE `users` ADD `withdraw_paused_until_ms` integer DEFAULT 0 NOT NULL;