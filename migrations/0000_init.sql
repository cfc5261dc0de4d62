CREATE TABLE `invite_codes` (
	`code` text PRIMARY KEY NOT NULL,
	`owner_user_id` integer,
	`enabled` integer DEFAULT 1 NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `login_throttle` (
	`key` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`window_started_at_ms` integer NOT NULL,
	`locked_until_ms` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`subject_id` integer NOT NULL,
	`created_at_ms` integer NOT NULL,
	`last_seen_at_ms` integer NOT NULL,
	`idle_timeout_ms` integer NOT NULL,
	`absolute_expires_at_ms` integer NOT NULL,
	`revoked_at_ms` integer,
	CONSTRAINT "sessions_kind_check" CHECK("sessions"."kind" in ('user','operator'))
);
--> statement-breakpoint
CREATE INDEX `sessions_subject_idx` ON `sessions` (`kind`,`subject_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account` text NOT NULL,
	`password_hash` text NOT NULL,
	`invite_code` text NOT NULL,
	`inviter_id` integer,
	`invited_with_code` text NOT NULL,
	`lang` text,
	`created_at_ms` integer NOT NULL,
	`password_changed_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_account_unique` ON `users` (`account`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_invite_code_unique` ON `users` (`invite_code`);--> statement-breakpoint
CREATE INDEX `users_inviter_idx` ON `users` (`inviter_id`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`operator_id` integer NOT NULL,
	`action` text NOT NULL,
	`target` text DEFAULT '' NOT NULL,
	`reason` text DEFAULT '' NOT NULL,
	`data_json` text DEFAULT '{}' NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_log_created_idx` ON `audit_log` (`created_at_ms`);--> statement-breakpoint
CREATE INDEX `audit_log_operator_idx` ON `audit_log` (`operator_id`);--> statement-breakpoint
CREATE TABLE `operators` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account` text NOT NULL,
	`password_hash` text NOT NULL,
	`enabled` integer DEFAULT 1 NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `operators_account_unique` ON `operators` (`account`);--> statement-breakpoint
CREATE TABLE `app_config` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `slides` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`title` text NOT NULL,
	`image_url` text NOT NULL,
	`link` text DEFAULT '' NOT NULL,
	`sort` integer DEFAULT 0 NOT NULL,
	`enabled` integer DEFAULT 1 NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `slides_sort_idx` ON `slides` (`enabled`,`sort`);