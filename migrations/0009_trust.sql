CREATE TABLE `deposit_addresses` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`channel_id` integer NOT NULL,
	`chain` text NOT NULL,
	`xpub` text NOT NULL,
	`derivation_index` integer NOT NULL,
	`address` text NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deposit_addresses_user_unique` ON `deposit_addresses` (`user_id`,`channel_id`,`xpub`);--> statement-breakpoint
CREATE UNIQUE INDEX `deposit_addresses_address_unique` ON `deposit_addresses` (`chain`,`address`);--> statement-breakpoint
DROP INDEX `bank_cards_live_unique`;--> statement-breakpoint
ALTER TABLE `bank_cards` ADD `card_fingerprint` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `bank_cards` ADD `card_last4` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Cards bound before encryption: their own fingerprint (so the unique index holds) and last four.
UPDATE `bank_cards` SET `card_fingerprint` = 'legacy:' || `id`, `card_last4` = substr(`card_number`, -4);--> statement-breakpoint
CREATE UNIQUE INDEX `bank_cards_live_unique` ON `bank_cards` (`user_id`,`card_fingerprint`) WHERE "bank_cards"."deleted_at_ms" IS NULL;--> statement-breakpoint
ALTER TABLE `deposit_channels` ADD `xpub` text DEFAULT '' NOT NULL;--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_deposits` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`channel_id` integer,
	`destination` text NOT NULL,
	`amount_micro` integer NOT NULL,
	`tx_hash` text DEFAULT '' NOT NULL,
	`image_id` text NOT NULL,
	`address` text DEFAULT '' NOT NULL,
	`status` text NOT NULL,
	`reason` text DEFAULT '' NOT NULL,
	`credited_micro` integer,
	`tx_ref` text DEFAULT '' NOT NULL,
	`approved_by` integer,
	`confirmed_by` integer,
	`four_eyes_micro` integer,
	`request_key` text NOT NULL,
	`request_hash` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`decided_at_ms` integer,
	CONSTRAINT "deposits_amount_positive" CHECK("__new_deposits"."amount_micro" > 0),
	CONSTRAINT "deposits_credited_positive" CHECK("__new_deposits"."credited_micro" IS NULL OR "__new_deposits"."credited_micro" > 0),
	CONSTRAINT "deposits_four_eyes" CHECK("__new_deposits"."confirmed_by" IS NULL OR "__new_deposits"."confirmed_by" <> "__new_deposits"."approved_by"),
	CONSTRAINT "deposits_large_needs_two" CHECK("__new_deposits"."status" <> 'approved' OR ("__new_deposits"."credited_micro" IS NOT NULL AND "__new_deposits"."four_eyes_micro" IS NOT NULL AND "__new_deposits"."approved_by" IS NOT NULL AND ("__new_deposits"."credited_micro" < "__new_deposits"."four_eyes_micro" OR ("__new_deposits"."confirmed_by" IS NOT NULL AND "__new_deposits"."confirmed_by" <> "__new_deposits"."approved_by"))))
);
--> statement-breakpoint
INSERT INTO `__new_deposits`("id", "user_id", "kind", "channel_id", "destination", "amount_micro", "tx_hash", "image_id", "address", "status", "reason", "credited_micro", "tx_ref", "approved_by", "confirmed_by", "four_eyes_micro", "request_key", "request_hash", "created_at_ms", "decided_at_ms") SELECT "id", "user_id", "kind", "channel_id", "destination", "amount_micro", "tx_hash", "image_id", '', "status", "reason", CASE "status" WHEN 'approved' THEN "amount_micro" END, '', CASE "status" WHEN 'approved' THEN 0 END, NULL, CASE "status" WHEN 'approved' THEN 9223372036854775807 END, "request_key", "request_hash", "created_at_ms", "decided_at_ms" FROM `deposits`;--> statement-breakpoint
DROP TABLE `deposits`;--> statement-breakpoint
ALTER TABLE `__new_deposits` RENAME TO `deposits`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `deposits_request_unique` ON `deposits` (`user_id`,`request_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `deposits_tx_once` ON `deposits` (`channel_id`,`tx_hash`) WHERE "deposits"."kind" = 'crypto' AND "deposits"."status" <> 'rejected';--> statement-breakpoint
CREATE INDEX `deposits_user_idx` ON `deposits` (`user_id`,`id`);--> statement-breakpoint
CREATE INDEX `deposits_status_idx` ON `deposits` (`status`,`id`);--> statement-breakpoint
ALTER TABLE `products` ADD `exposure_limit_micro` integer DEFAULT 100000000000 NOT NULL;;--> statement-breakpoint
-- Settled orders and the ticks that settled them are frozen, like transfers: an outcome is
-- written once (open -> won/lost/tie/void) and never edited or removed afterwards.
CREATE TRIGGER `orders_settled_frozen` BEFORE UPDATE ON `orders` WHEN OLD.`status` <> 'open'
BEGIN
  SELECT RAISE(ABORT, 'settled orders are immutable');
END;
--> statement-breakpoint
CREATE TRIGGER `orders_no_delete` BEFORE DELETE ON `orders`
BEGIN
  SELECT RAISE(ABORT, 'orders are never deleted');
END;
--> statement-breakpoint
CREATE TRIGGER `order_ticks_no_update` BEFORE UPDATE ON `order_ticks`
BEGIN
  SELECT RAISE(ABORT, 'order_ticks is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `order_ticks_no_delete` BEFORE DELETE ON `order_ticks`
BEGIN
  SELECT RAISE(ABORT, 'order_ticks is append-only');
END;
