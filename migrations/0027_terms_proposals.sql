CREATE TABLE `terms_proposals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`target` text NOT NULL,
	`terms_json` text NOT NULL,
	`before_json` text,
	`base_version` integer NOT NULL,
	`reason` text NOT NULL,
	`proposed_by` integer NOT NULL,
	`proposed_at_ms` integer NOT NULL,
	`status` text NOT NULL,
	`decided_by` integer,
	`decided_at_ms` integer,
	`decline_reason` text DEFAULT '' NOT NULL,
	`opened_version` integer,
	CONSTRAINT "terms_proposals_two_people" CHECK("terms_proposals"."status" <> 'opened' OR ("terms_proposals"."decided_by" IS NOT NULL AND "terms_proposals"."decided_by" <> "terms_proposals"."proposed_by" AND "terms_proposals"."opened_version" IS NOT NULL))
);
--> statement-breakpoint
CREATE INDEX `terms_proposals_status_idx` ON `terms_proposals` (`status`,`kind`,`target`);--> statement-breakpoint
ALTER TABLE `withdrawal_rules` ADD `terms_version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `withdrawal_rules` ADD `terms_by` integer;--> statement-breakpoint
ALTER TABLE `withdrawal_rules` ADD `terms_opened_by` integer;--> statement-breakpoint
ALTER TABLE `withdrawals` ADD `terms_version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `terms_version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `product_durations` ADD `terms_version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `products` ADD `terms_version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `products` ADD `terms_by` integer;--> statement-breakpoint
ALTER TABLE `products` ADD `terms_opened_by` integer;--> statement-breakpoint
-- A market's terms change only with a new version whose proposer and opener are two different
-- operators (both null: the seed or a deployer's script).
CREATE TRIGGER `products_terms_need_two` BEFORE UPDATE ON `products`
WHEN (OLD.`fee_rate_bp` IS NOT NEW.`fee_rate_bp` OR OLD.`exposure_limit_micro` IS NOT NEW.`exposure_limit_micro` OR OLD.`trading_hours` IS NOT NEW.`trading_hours`
      OR OLD.`terms_version` IS NOT NEW.`terms_version` OR OLD.`terms_by` IS NOT NEW.`terms_by` OR OLD.`terms_opened_by` IS NOT NEW.`terms_opened_by`)
  AND NOT (NEW.`terms_version` = OLD.`terms_version` + 1
    AND ((NEW.`terms_by` IS NULL AND NEW.`terms_opened_by` IS NULL) OR (NEW.`terms_by` IS NOT NULL AND NEW.`terms_opened_by` IS NOT NULL AND NEW.`terms_by` <> NEW.`terms_opened_by`)))
BEGIN SELECT RAISE(ABORT, 'products_terms_need_two'); END;--> statement-breakpoint
-- Durations (payout rates and stakes) are written only as a new terms version's rows.
CREATE TRIGGER `product_durations_new_version` BEFORE INSERT ON `product_durations`
WHEN NEW.`terms_version` IS NOT (SELECT `terms_version` FROM `products` WHERE `id` = NEW.`product_id`)
BEGIN SELECT RAISE(ABORT, 'products_terms_need_two'); END;--> statement-breakpoint
CREATE TRIGGER `product_durations_old_version_only` BEFORE DELETE ON `product_durations`
WHEN OLD.`terms_version` >= (SELECT `terms_version` FROM `products` WHERE `id` = OLD.`product_id`)
BEGIN SELECT RAISE(ABORT, 'products_terms_need_two'); END;--> statement-breakpoint
CREATE TRIGGER `product_durations_no_update` BEFORE UPDATE ON `product_durations`
BEGIN SELECT RAISE(ABORT, 'products_terms_need_two'); END;--> statement-breakpoint
-- The same for a withdrawal channel's fees and minimum.
CREATE TRIGGER `withdrawal_rules_terms_need_two` BEFORE UPDATE ON `withdrawal_rules`
WHEN (OLD.`fee_fixed_micro` IS NOT NEW.`fee_fixed_micro` OR OLD.`fee_rate_bp` IS NOT NEW.`fee_rate_bp` OR OLD.`min_amount_micro` IS NOT NEW.`min_amount_micro`
      OR OLD.`terms_version` IS NOT NEW.`terms_version` OR OLD.`terms_by` IS NOT NEW.`terms_by` OR OLD.`terms_opened_by` IS NOT NEW.`terms_opened_by`)
  AND NOT (NEW.`terms_version` = OLD.`terms_version` + 1
    AND ((NEW.`terms_by` IS NULL AND NEW.`terms_opened_by` IS NULL) OR (NEW.`terms_by` IS NOT NULL AND NEW.`terms_opened_by` IS NOT NULL AND NEW.`terms_by` <> NEW.`terms_opened_by`)))
BEGIN SELECT RAISE(ABORT, 'withdrawal_rules_terms_need_two'); END;--> statement-breakpoint
-- An order is written only under the terms in force: a hub holding old terms cannot place one.
CREATE TRIGGER `orders_terms_in_force` BEFORE INSERT ON `orders`
WHEN NEW.`terms_version` IS NOT (SELECT `terms_version` FROM `products` WHERE `id` = NEW.`product_id`)
BEGIN SELECT RAISE(ABORT, 'orders_terms_changed'); END;--> statement-breakpoint
CREATE TRIGGER `terms_proposals_no_delete` BEFORE DELETE ON `terms_proposals`
BEGIN SELECT RAISE(ABORT, 'terms_proposals are kept'); END;--> statement-breakpoint
CREATE TRIGGER `terms_proposals_decided_frozen` BEFORE UPDATE ON `terms_proposals` WHEN OLD.`status` <> 'pending'
BEGIN SELECT RAISE(ABORT, 'terms_proposals are kept'); END;
