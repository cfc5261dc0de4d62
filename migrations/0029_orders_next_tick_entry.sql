PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_orders` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`product_id` integer NOT NULL,
	`symbol` text NOT NULL,
	`direction` text NOT NULL,
	`stake_micro` integer NOT NULL,
	`fee_micro` integer NOT NULL,
	`profit_rate_bp` integer NOT NULL,
	`seconds` integer NOT NULL,
	`quote_price_e8` integer NOT NULL,
	`entry_price_e8` integer,
	`entry_tick_ts_ms` integer,
	`created_at_ms` integer NOT NULL,
	`delivery_at_ms` integer NOT NULL,
	`status` text NOT NULL,
	`settlement_price_e8` integer,
	`settlement_tick_ts_ms` integer,
	`payout_micro` integer,
	`profit_micro` integer,
	`void_reason` text DEFAULT '' NOT NULL,
	`settled_at_ms` integer,
	`request_key` text NOT NULL,
	`request_hash` text NOT NULL,
	`feed` text DEFAULT 'simulation' NOT NULL,
	`terms_version` integer DEFAULT 1 NOT NULL,
	`wallet` text DEFAULT 'real' NOT NULL,
	CONSTRAINT "orders_amounts" CHECK("__new_orders"."stake_micro" > 0 AND "__new_orders"."fee_micro" >= 0 AND ("__new_orders"."entry_price_e8" IS NULL OR "__new_orders"."entry_price_e8" > 0) AND "__new_orders"."delivery_at_ms" > "__new_orders"."created_at_ms")
);
--> statement-breakpoint
INSERT INTO `__new_orders`("id", "user_id", "product_id", "symbol", "direction", "stake_micro", "fee_micro", "profit_rate_bp", "seconds", "quote_price_e8", "entry_price_e8", "entry_tick_ts_ms", "created_at_ms", "delivery_at_ms", "status", "settlement_price_e8", "settlement_tick_ts_ms", "payout_micro", "profit_micro", "void_reason", "settled_at_ms", "request_key", "request_hash", "feed", "terms_version") SELECT "id", "user_id", "product_id", "symbol", "direction", "stake_micro", "fee_micro", "profit_rate_bp", "seconds", "quote_price_e8", "entry_price_e8", "entry_tick_ts_ms", "created_at_ms", "delivery_at_ms", "status", "settlement_price_e8", "settlement_tick_ts_ms", "payout_micro", "profit_micro", "void_reason", "settled_at_ms", "request_key", "request_hash", "feed", "terms_version" FROM `orders`;--> statement-breakpoint
DROP TABLE `orders`;--> statement-breakpoint
ALTER TABLE `__new_orders` RENAME TO `orders`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `orders_request_unique` ON `orders` (`user_id`,`request_key`);--> statement-breakpoint
CREATE INDEX `orders_user_idx` ON `orders` (`user_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `orders_due_idx` ON `orders` (`status`,`delivery_at_ms`);--> statement-breakpoint
-- The rebuild above (entry nullable until the first tick after acceptance; the wallet column)
-- dropped the table's triggers with the old table: they are made again, word for word.
CREATE TRIGGER `orders_settled_frozen` BEFORE UPDATE ON `orders` WHEN OLD.`status` <> 'open'
BEGIN
  SELECT RAISE(ABORT, 'settled orders are immutable');
END;--> statement-breakpoint
CREATE TRIGGER `orders_no_delete` BEFORE DELETE ON `orders`
BEGIN
  SELECT RAISE(ABORT, 'orders are never deleted');
END;--> statement-breakpoint
CREATE TRIGGER `orders_self_excluded` BEFORE INSERT ON `orders`
WHEN EXISTS (SELECT 1 FROM self_exclusions s WHERE s.user_id = NEW.user_id AND s.until_ms > NEW.created_at_ms)
BEGIN
  SELECT RAISE(ABORT, 'self_excluded');
END;--> statement-breakpoint
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
END;--> statement-breakpoint
CREATE TRIGGER log_queue_order AFTER UPDATE OF status ON orders
WHEN OLD.status = 'open' AND NEW.status <> 'open'
BEGIN
  INSERT INTO log_queue (kind, ref_id, created_at_ms) VALUES ('order', CAST(NEW.id AS TEXT), COALESCE(NEW.settled_at_ms, 0));
END;--> statement-breakpoint
CREATE TRIGGER `orders_terms_in_force` BEFORE INSERT ON `orders`
WHEN NEW.`terms_version` IS NOT (SELECT `terms_version` FROM `products` WHERE `id` = NEW.`product_id`)
BEGIN SELECT RAISE(ABORT, 'orders_terms_changed'); END;
