CREATE TABLE `self_exclusions` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`started_at_ms` integer NOT NULL,
	`until_ms` integer NOT NULL,
	CONSTRAINT "self_exclusions_kind" CHECK("self_exclusions"."kind" in ('cool_off','exclusion') AND "self_exclusions"."until_ms" > "self_exclusions"."started_at_ms")
);
--> statement-breakpoint
CREATE TABLE `trading_limits` (
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`value` integer,
	`pending_value` integer,
	`pending_at_ms` integer,
	`updated_at_ms` integer NOT NULL,
	PRIMARY KEY(`user_id`, `kind`),
	CONSTRAINT "trading_limits_kind" CHECK(kind in ('daily_stake','weekly_stake','monthly_stake','daily_loss','weekly_loss','monthly_loss','max_open_orders')),
	CONSTRAINT "trading_limits_positive" CHECK(("trading_limits"."value" IS NULL OR "trading_limits"."value" > 0) AND ("trading_limits"."pending_value" IS NULL OR "trading_limits"."pending_value" > 0))
);
--> statement-breakpoint
ALTER TABLE `bank_cards` ADD `opens_at_ms` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `wallets` ADD `opens_at_ms` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- hand-written below
-- A cool-off or self-exclusion only ever grows: no update brings its end earlier, no delete ends it.
CREATE TRIGGER `self_exclusions_only_grow` BEFORE UPDATE ON `self_exclusions`
WHEN NEW.until_ms < OLD.until_ms OR NEW.user_id <> OLD.user_id
BEGIN
  SELECT RAISE(ABORT, 'self_exclusion_only_grows');
END;
--> statement-breakpoint
CREATE TRIGGER `self_exclusions_no_delete` BEFORE DELETE ON `self_exclusions`
BEGIN
  SELECT RAISE(ABORT, 'self_exclusion_only_grows');
END;
--> statement-breakpoint
-- While excluded, no order and no deposit is written, whatever path writes it.
CREATE TRIGGER `orders_self_excluded` BEFORE INSERT ON `orders`
WHEN EXISTS (SELECT 1 FROM self_exclusions s WHERE s.user_id = NEW.user_id AND s.until_ms > NEW.created_at_ms)
BEGIN
  SELECT RAISE(ABORT, 'self_excluded');
END;
--> statement-breakpoint
CREATE TRIGGER `deposits_self_excluded` BEFORE INSERT ON `deposits`
WHEN EXISTS (SELECT 1 FROM self_exclusions s WHERE s.user_id = NEW.user_id AND s.until_ms > NEW.created_at_ms)
BEGIN
  SELECT RAISE(ABORT, 'self_excluded');
END;
--> statement-breakpoint
-- The user's own limits, checked by the insert of the order itself: it sees the orders written
-- before it in the same batch (the QuoteHub's group commit), so parallel orders cannot pass a
-- limit together. Periods are the UTC day, the ISO week (Monday) and the calendar month of the
-- order's time; stakes count orders placed in the period (void ones are refunded in full and do
-- not count); loss is stakes minus payouts of orders settled in the period, plus the stakes still
-- open and this one (what could be lost at worst). Only users with a limit row pay for it.
CREATE TRIGGER `orders_trading_limits` BEFORE INSERT ON `orders`
WHEN EXISTS (SELECT 1 FROM trading_limits l WHERE l.user_id = NEW.user_id)
BEGIN
  SELECT RAISE(ABORT, 'trading_limit:daily_stake') WHERE (SELECT CASE WHEN l.pending_at_ms IS NOT NULL AND l.pending_at_ms <= NEW.created_at_ms THEN l.pending_value ELSE l.value END FROM trading_limits l WHERE l.user_id = NEW.user_id AND l.kind = 'daily_stake') IS NOT NULL
    AND NEW.stake_micro + (SELECT COALESCE(SUM(o.stake_micro), 0) FROM orders o WHERE o.user_id = NEW.user_id AND o.created_at_ms >= (NEW.created_at_ms - NEW.created_at_ms % 86400000) AND o.status <> 'void') > (SELECT CASE WHEN l.pending_at_ms IS NOT NULL AND l.pending_at_ms <= NEW.created_at_ms THEN l.pending_value ELSE l.value END FROM trading_limits l WHERE l.user_id = NEW.user_id AND l.kind = 'daily_stake');
  SELECT RAISE(ABORT, 'trading_limit:weekly_stake') WHERE (SELECT CASE WHEN l.pending_at_ms IS NOT NULL AND l.pending_at_ms <= NEW.created_at_ms THEN l.pending_value ELSE l.value END FROM trading_limits l WHERE l.user_id = NEW.user_id AND l.kind = 'weekly_stake') IS NOT NULL
    AND NEW.stake_micro + (SELECT COALESCE(SUM(o.stake_micro), 0) FROM orders o WHERE o.user_id = NEW.user_id AND o.created_at_ms >= (NEW.created_at_ms - NEW.created_at_ms % 86400000 - ((NEW.created_at_ms / 86400000 + 3) % 7) * 86400000) AND o.status <> 'void') > (SELECT CASE WHEN l.pending_at_ms IS NOT NULL AND l.pending_at_ms <= NEW.created_at_ms THEN l.pending_value ELSE l.value END FROM trading_limits l WHERE l.user_id = NEW.user_id AND l.kind = 'weekly_stake');
  SELECT RAISE(ABORT, 'trading_limit:monthly_stake') WHERE (SELECT CASE WHEN l.pending_at_ms IS NOT NULL AND l.pending_at_ms <= NEW.created_at_ms THEN l.pending_value ELSE l.value END FROM trading_limits l WHERE l.user_id = NEW.user_id AND l.kind = 'monthly_stake') IS NOT NULL
    AND NEW.stake_micro + (SELECT COALESCE(SUM(o.stake_micro), 0) FROM orders o WHERE o.user_id = NEW.user_id AND o.created_at_ms >= (CAST(strftime('%s', NEW.created_at_ms / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000) AND o.status <> 'void') > (SELECT CASE WHEN l.pending_at_ms IS NOT NULL AND l.pending_at_ms <= NEW.created_at_ms THEN l.pending_value ELSE l.value END FROM trading_limits l WHERE l.user_id = NEW.user_id AND l.kind = 'monthly_stake');
  SELECT RAISE(ABORT, 'trading_limit:daily_loss') WHERE (SELECT CASE WHEN l.pending_at_ms IS NOT NULL AND l.pending_at_ms <= NEW.created_at_ms THEN l.pending_value ELSE l.value END FROM trading_limits l WHERE l.user_id = NEW.user_id AND l.kind = 'daily_loss') IS NOT NULL
    AND NEW.stake_micro + (SELECT COALESCE(SUM(o.stake_micro), 0) FROM orders o WHERE o.user_id = NEW.user_id AND o.status = 'open')
    + (SELECT COALESCE(SUM(o.stake_micro - o.payout_micro), 0) FROM orders o WHERE o.user_id = NEW.user_id AND o.status IN ('won','lost','tie') AND o.settled_at_ms >= (NEW.created_at_ms - NEW.created_at_ms % 86400000)) > (SELECT CASE WHEN l.pending_at_ms IS NOT NULL AND l.pending_at_ms <= NEW.created_at_ms THEN l.pending_value ELSE l.value END FROM trading_limits l WHERE l.user_id = NEW.user_id AND l.kind = 'daily_loss');
  SELECT RAISE(ABORT, 'trading_limit:weekly_loss') WHERE (SELECT CASE WHEN l.pending_at_ms IS NOT NULL AND l.pending_at_ms <= NEW.created_at_ms THEN l.pending_value ELSE l.value END FROM trading_limits l WHERE l.user_id = NEW.user_id AND l.kind = 'weekly_loss') IS NOT NULL
    AND NEW.stake_micro + (SELECT COALESCE(SUM(o.stake_micro), 0) FROM orders o WHERE o.user_id = NEW.user_id AND o.status = 'open')
    + (SELECT COALESCE(SUM(o.stake_micro - o.payout_micro), 0) FROM orders o WHERE o.user_id = NEW.user_id AND o.status IN ('won','lost','tie') AND o.settled_at_ms >= (NEW.created_at_ms - NEW.created_at_ms % 86400000 - ((NEW.created_at_ms / 86400000 + 3) % 7) * 86400000)) > (SELECT CASE WHEN l.pending_at_ms IS NOT NULL AND l.pending_at_ms <= NEW.created_at_ms THEN l.pending_value ELSE l.value END FROM trading_limits l WHERE l.user_id = NEW.user_id AND l.kind = 'weekly_loss');
  SELECT RAISE(ABORT, 'trading_limit:monthly_loss') WHERE (SELECT CASE WHEN l.pending_at_ms IS NOT NULL AND l.pending_at_ms <= NEW.created_at_ms THEN l.pending_value ELSE l.value END FROM trading_limits l WHERE l.user_id = NEW.user_id AND l.kind = 'monthly_loss') IS NOT NULL
    AND NEW.stake_micro + (SELECT COALESCE(SUM(o.stake_micro), 0) FROM orders o WHERE o.user_id = NEW.user_id AND o.status = 'open')
    + (SELECT COALESCE(SUM(o.stake_micro - o.payout_micro), 0) FROM orders o WHERE o.user_id = NEW.user_id AND o.status IN ('won','lost','tie') AND o.settled_at_ms >= (CAST(strftime('%s', NEW.created_at_ms / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000)) > (SELECT CASE WHEN l.pending_at_ms IS NOT NULL AND l.pending_at_ms <= NEW.created_at_ms THEN l.pending_value ELSE l.value END FROM trading_limits l WHERE l.user_id = NEW.user_id AND l.kind = 'monthly_loss');
  SELECT RAISE(ABORT, 'trading_limit:max_open_orders') WHERE (SELECT CASE WHEN l.pending_at_ms IS NOT NULL AND l.pending_at_ms <= NEW.created_at_ms THEN l.pending_value ELSE l.value END FROM trading_limits l WHERE l.user_id = NEW.user_id AND l.kind = 'max_open_orders') IS NOT NULL
    AND 1 + (SELECT COUNT(*) FROM orders o WHERE o.user_id = NEW.user_id AND o.status = 'open') > (SELECT CASE WHEN l.pending_at_ms IS NOT NULL AND l.pending_at_ms <= NEW.created_at_ms THEN l.pending_value ELSE l.value END FROM trading_limits l WHERE l.user_id = NEW.user_id AND l.kind = 'max_open_orders');
END;
--> statement-breakpoint
-- The sums above read a user's orders by time.
CREATE INDEX `orders_user_created_idx` ON `orders` (`user_id`, `created_at_ms`);
--> statement-breakpoint
CREATE INDEX `orders_user_settled_idx` ON `orders` (`user_id`, `settled_at_ms`);
