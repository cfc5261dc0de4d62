-- Where deposits go needs two operators: whoever sets a channel's xpub cannot open it (worker/domain/audit/second-operator.ts).
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_deposit_channels` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`currency` text NOT NULL,
	`chain` text NOT NULL,
	`address` text NOT NULL,
	`xpub` text DEFAULT '' NOT NULL,
	`min_amount_micro` integer NOT NULL,
	`enabled` integer DEFAULT 1 NOT NULL,
	`terms_by` integer,
	`opened_by` integer,
	`sort` integer DEFAULT 0 NOT NULL,
	`created_at_ms` integer NOT NULL,
	CONSTRAINT "deposit_channels_min_positive" CHECK("__new_deposit_channels"."min_amount_micro" > 0),
	CONSTRAINT "deposit_channels_four_eyes" CHECK("__new_deposit_channels"."enabled" = 0 OR "__new_deposit_channels"."terms_by" IS NULL OR ("__new_deposit_channels"."opened_by" IS NOT NULL AND "__new_deposit_channels"."opened_by" <> "__new_deposit_channels"."terms_by"))
);
--> statement-breakpoint
INSERT INTO `__new_deposit_channels`("id", "currency", "chain", "address", "xpub", "min_amount_micro", "enabled", "terms_by", "opened_by", "sort", "created_at_ms") SELECT "id", "currency", "chain", "address", "xpub", "min_amount_micro", "enabled", NULL, NULL, "sort", "created_at_ms" FROM `deposit_channels`;--> statement-breakpoint
DROP TABLE `deposit_channels`;--> statement-breakpoint
ALTER TABLE `__new_deposit_channels` RENAME TO `deposit_channels`;--> statement-breakpoint
PRAGMA foreign_keys=ON;