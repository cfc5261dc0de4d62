-- Earn products and plans need two operators: whoever set the terms cannot open them (worker/domain/earn/products.ts).
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_miner_plans` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`price_micro` integer NOT NULL,
	`days` integer NOT NULL,
	`daily_output_micro` integer NOT NULL,
	`stock` integer NOT NULL,
	`enabled` integer DEFAULT 1 NOT NULL,
	`terms_by` integer,
	`opened_by` integer,
	`sort` integer DEFAULT 0 NOT NULL,
	`created_at_ms` integer NOT NULL,
	CONSTRAINT "miner_plans_four_eyes" CHECK("__new_miner_plans"."enabled" = 0 OR "__new_miner_plans"."terms_by" IS NULL OR ("__new_miner_plans"."opened_by" IS NOT NULL AND "__new_miner_plans"."opened_by" <> "__new_miner_plans"."terms_by")),
	CONSTRAINT "miner_plans_valid" CHECK("__new_miner_plans"."price_micro" > 0 AND "__new_miner_plans"."days" > 0 AND "__new_miner_plans"."daily_output_micro" > 0 AND "__new_miner_plans"."stock" >= 0)
);
--> statement-breakpoint
INSERT INTO `__new_miner_plans`("id", "name", "price_micro", "days", "daily_output_micro", "stock", "enabled", "terms_by", "opened_by", "sort", "created_at_ms") SELECT "id", "name", "price_micro", "days", "daily_output_micro", "stock", "enabled", NULL, NULL, "sort", "created_at_ms" FROM `miner_plans`;--> statement-breakpoint
DROP TABLE `miner_plans`;--> statement-breakpoint
ALTER TABLE `__new_miner_plans` RENAME TO `miner_plans`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE TABLE `__new_pool_products` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`days` integer NOT NULL,
	`daily_rate_bp` integer NOT NULL,
	`min_amount_micro` integer NOT NULL,
	`max_amount_micro` integer NOT NULL,
	`penalty_rate_bp` integer NOT NULL,
	`enabled` integer DEFAULT 1 NOT NULL,
	`terms_by` integer,
	`opened_by` integer,
	`sort` integer DEFAULT 0 NOT NULL,
	`created_at_ms` integer NOT NULL,
	CONSTRAINT "pool_products_four_eyes" CHECK("__new_pool_products"."enabled" = 0 OR "__new_pool_products"."terms_by" IS NULL OR ("__new_pool_products"."opened_by" IS NOT NULL AND "__new_pool_products"."opened_by" <> "__new_pool_products"."terms_by")),
	CONSTRAINT "pool_products_valid" CHECK("__new_pool_products"."days" > 0 AND "__new_pool_products"."daily_rate_bp" > 0 AND "__new_pool_products"."penalty_rate_bp" >= 0 AND "__new_pool_products"."min_amount_micro" > 0 AND "__new_pool_products"."max_amount_micro" >= "__new_pool_products"."min_amount_micro")
);
--> statement-breakpoint
INSERT INTO `__new_pool_products`("id", "name", "days", "daily_rate_bp", "min_amount_micro", "max_amount_micro", "penalty_rate_bp", "enabled", "terms_by", "opened_by", "sort", "created_at_ms") SELECT "id", "name", "days", "daily_rate_bp", "min_amount_micro", "max_amount_micro", "penalty_rate_bp", "enabled", NULL, NULL, "sort", "created_at_ms" FROM `pool_products`;--> statement-breakpoint
DROP TABLE `pool_products`;--> statement-breakpoint
ALTER TABLE `__new_pool_products` RENAME TO `pool_products`;