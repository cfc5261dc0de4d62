CREATE TABLE `ledger_accounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_key` text NOT NULL,
	`owner_kind` text NOT NULL,
	`user_id` integer,
	`code` text NOT NULL,
	`balance_micro` integer DEFAULT 0 NOT NULL,
	`debits_micro` integer DEFAULT 0 NOT NULL,
	`credits_micro` integer DEFAULT 0 NOT NULL,
	`created_at_ms` integer NOT NULL,
	CONSTRAINT "ledger_accounts_owner_check" CHECK("ledger_accounts"."owner_kind" in ('user','platform')),
	CONSTRAINT "ledger_accounts_user_non_negative" CHECK("ledger_accounts"."owner_kind" = 'platform' OR "ledger_accounts"."balance_micro" >= 0),
	CONSTRAINT "ledger_accounts_totals_non_negative" CHECK("ledger_accounts"."debits_micro" >= 0 AND "ledger_accounts"."credits_micro" >= 0),
	CONSTRAINT "ledger_accounts_balance_is_totals" CHECK("ledger_accounts"."balance_micro" = "ledger_accounts"."credits_micro" - "ledger_accounts"."debits_micro")
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_accounts_key_unique` ON `ledger_accounts` (`account_key`);--> statement-breakpoint
CREATE INDEX `ledger_accounts_user_idx` ON `ledger_accounts` (`user_id`);--> statement-breakpoint
CREATE TABLE `ledger_transfers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`transfer_key` text NOT NULL,
	`debit_account_id` integer NOT NULL,
	`credit_account_id` integer NOT NULL,
	`amount_micro` integer NOT NULL,
	`code` text NOT NULL,
	`ref_type` text NOT NULL,
	`ref_id` text NOT NULL,
	`debit_balance_after_micro` integer NOT NULL,
	`credit_balance_after_micro` integer NOT NULL,
	`created_at_ms` integer NOT NULL,
	CONSTRAINT "ledger_transfers_amount_positive" CHECK("ledger_transfers"."amount_micro" > 0),
	CONSTRAINT "ledger_transfers_distinct_accounts" CHECK("ledger_transfers"."debit_account_id" <> "ledger_transfers"."credit_account_id")
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_transfers_key_unique` ON `ledger_transfers` (`transfer_key`);--> statement-breakpoint
CREATE INDEX `ledger_transfers_debit_idx` ON `ledger_transfers` (`debit_account_id`,`id`);--> statement-breakpoint
CREATE INDEX `ledger_transfers_credit_idx` ON `ledger_transfers` (`credit_account_id`,`id`);--> statement-breakpoint
CREATE INDEX `ledger_transfers_ref_idx` ON `ledger_transfers` (`ref_type`,`ref_id`);