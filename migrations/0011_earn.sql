CREATE TABLE `profiles` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`phone` text NOT NULL,
	`email` text NOT NULL,
	`id_photo_id` text NOT NULL,
	`signature_id` text NOT NULL,
	`status` text NOT NULL,
	`reject_reason` text DEFAULT '' NOT NULL,
	`submitted_at_ms` integer NOT NULL,
	`decided_at_ms` integer,
	`decided_by` integer
);
--> statement-breakpoint
CREATE INDEX `profiles_status_idx` ON `profiles` (`status`,`submitted_at_ms`);--> statement-breakpoint
CREATE TABLE `miner_machines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`plan_id` integer NOT NULL,
	`price_micro` integer NOT NULL,
	`days` integer NOT NULL,
	`daily_output_micro` integer NOT NULL,
	`started_at_ms` integer NOT NULL,
	`ends_at_ms` integer NOT NULL,
	`status` text NOT NULL,
	`days_paid` integer DEFAULT 0 NOT NULL,
	`request_key` text NOT NULL,
	`request_hash` text NOT NULL,
	CONSTRAINT "miner_machines_valid" CHECK("miner_machines"."price_micro" > 0 AND "miner_machines"."days" > 0 AND "miner_machines"."days_paid" >= 0 AND "miner_machines"."days_paid" <= "miner_machines"."days")
);
--> statement-breakpoint
CREATE UNIQUE INDEX `miner_machines_request_unique` ON `miner_machines` (`user_id`,`request_key`);--> statement-breakpoint
CREATE INDEX `miner_machines_user_idx` ON `miner_machines` (`user_id`,`id`);--> statement-breakpoint
CREATE INDEX `miner_machines_due_idx` ON `miner_machines` (`status`,`started_at_ms`);--> statement-breakpoint
CREATE TABLE `miner_outputs` (
	`machine_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`day` integer NOT NULL,
	`output_micro` integer NOT NULL,
	`credited_at_ms` integer NOT NULL,
	PRIMARY KEY(`machine_id`, `day`)
);
--> statement-breakpoint
CREATE INDEX `miner_outputs_user_idx` ON `miner_outputs` (`user_id`,`credited_at_ms`);--> statement-breakpoint
CREATE TABLE `miner_plans` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`price_micro` integer NOT NULL,
	`days` integer NOT NULL,
	`daily_output_micro` integer NOT NULL,
	`stock` integer NOT NULL,
	`enabled` integer DEFAULT 1 NOT NULL,
	`sort` integer DEFAULT 0 NOT NULL,
	`created_at_ms` integer NOT NULL,
	CONSTRAINT "miner_plans_valid" CHECK("miner_plans"."price_micro" > 0 AND "miner_plans"."days" > 0 AND "miner_plans"."daily_output_micro" > 0 AND "miner_plans"."stock" >= 0)
);
--> statement-breakpoint
CREATE TABLE `pool_orders` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`product_id` integer NOT NULL,
	`amount_micro` integer NOT NULL,
	`days` integer NOT NULL,
	`daily_rate_bp` integer NOT NULL,
	`penalty_rate_bp` integer NOT NULL,
	`started_at_ms` integer NOT NULL,
	`expires_at_ms` integer NOT NULL,
	`status` text NOT NULL,
	`days_paid` integer DEFAULT 0 NOT NULL,
	`reward_paid_micro` integer DEFAULT 0 NOT NULL,
	`penalty_micro` integer,
	`redeem_amount_micro` integer,
	`closed_at_ms` integer,
	`request_key` text NOT NULL,
	`request_hash` text NOT NULL,
	CONSTRAINT "pool_orders_valid" CHECK("pool_orders"."amount_micro" > 0 AND "pool_orders"."days" > 0 AND "pool_orders"."days_paid" >= 0 AND "pool_orders"."days_paid" <= "pool_orders"."days" AND "pool_orders"."reward_paid_micro" >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pool_orders_request_unique` ON `pool_orders` (`user_id`,`request_key`);--> statement-breakpoint
CREATE INDEX `pool_orders_user_idx` ON `pool_orders` (`user_id`,`id`);--> statement-breakpoint
CREATE INDEX `pool_orders_due_idx` ON `pool_orders` (`status`,`started_at_ms`);--> statement-breakpoint
CREATE TABLE `pool_products` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`days` integer NOT NULL,
	`daily_rate_bp` integer NOT NULL,
	`min_amount_micro` integer NOT NULL,
	`max_amount_micro` integer NOT NULL,
	`penalty_rate_bp` integer NOT NULL,
	`enabled` integer DEFAULT 1 NOT NULL,
	`sort` integer DEFAULT 0 NOT NULL,
	`created_at_ms` integer NOT NULL,
	CONSTRAINT "pool_products_valid" CHECK("pool_products"."days" > 0 AND "pool_products"."daily_rate_bp" > 0 AND "pool_products"."penalty_rate_bp" >= 0 AND "pool_products"."min_amount_micro" > 0 AND "pool_products"."max_amount_micro" >= "pool_products"."min_amount_micro")
);
--> statement-breakpoint
-- Cloud-miner sales are paid to this platform account (worker/domain/earn/miner.ts).
INSERT INTO `ledger_accounts` (`account_key`, `owner_kind`, `user_id`, `code`, `created_at_ms`) VALUES
  ('platform:miner', 'platform', NULL, 'miner', 0);
