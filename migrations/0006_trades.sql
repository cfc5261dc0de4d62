CREATE TABLE `order_ticks` (
	`order_id` integer NOT NULL,
	`ts_ms` integer NOT NULL,
	`price_e8` integer NOT NULL,
	`role` text NOT NULL,
	PRIMARY KEY(`order_id`, `ts_ms`)
);
--> statement-breakpoint
CREATE TABLE `orders` (
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
	`entry_price_e8` integer NOT NULL,
	`entry_tick_ts_ms` integer NOT NULL,
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
	CONSTRAINT "orders_amounts" CHECK("orders"."stake_micro" > 0 AND "orders"."fee_micro" >= 0 AND "orders"."entry_price_e8" > 0 AND "orders"."delivery_at_ms" > "orders"."created_at_ms")
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orders_request_unique` ON `orders` (`user_id`,`request_key`);--> statement-breakpoint
CREATE INDEX `orders_user_idx` ON `orders` (`user_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `orders_due_idx` ON `orders` (`status`,`delivery_at_ms`);--> statement-breakpoint
CREATE TABLE `product_durations` (
	`product_id` integer NOT NULL,
	`seconds` integer NOT NULL,
	`profit_rate_bp` integer NOT NULL,
	`min_stake_micro` integer NOT NULL,
	`max_stake_micro` integer NOT NULL,
	PRIMARY KEY(`product_id`, `seconds`),
	CONSTRAINT "product_durations_valid" CHECK("product_durations"."seconds" > 0 AND "product_durations"."profit_rate_bp" > 0 AND "product_durations"."min_stake_micro" > 0 AND "product_durations"."max_stake_micro" >= "product_durations"."min_stake_micro")
);
--> statement-breakpoint
CREATE TABLE `products` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`symbol` text NOT NULL,
	`name` text NOT NULL,
	`feed_symbol` text NOT NULL,
	`start_price_e8` integer NOT NULL,
	`tick_size_e8` integer NOT NULL,
	`fee_rate_bp` integer NOT NULL,
	`quote_tolerance_bp` integer NOT NULL,
	`trading_hours` text DEFAULT '' NOT NULL,
	`enabled` integer DEFAULT 1 NOT NULL,
	`sort` integer DEFAULT 0 NOT NULL,
	`created_at_ms` integer NOT NULL,
	CONSTRAINT "products_positive" CHECK("products"."start_price_e8" > 0 AND "products"."tick_size_e8" > 0 AND "products"."fee_rate_bp" >= 0 AND "products"."fee_rate_bp" <= 10000 AND "products"."quote_tolerance_bp" >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `products_symbol_unique` ON `products` (`symbol`);