CREATE TABLE `dev_outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`channel` text NOT NULL,
	`to` text NOT NULL,
	`subject` text DEFAULT '' NOT NULL,
	`text` text NOT NULL,
	`html` text DEFAULT '' NOT NULL,
	`created_at_ms` integer NOT NULL,
	CONSTRAINT "dev_outbox_channel_check" CHECK("dev_outbox"."channel" in ('email','sms'))
);
--> statement-breakpoint
CREATE INDEX `dev_outbox_to_idx` ON `dev_outbox` (`to`,`id`);--> statement-breakpoint
CREATE TABLE `one_time_codes` (
	`purpose` text NOT NULL,
	`address` text NOT NULL,
	`user_id` integer,
	`sent_to` text DEFAULT '' NOT NULL,
	`salt` text NOT NULL,
	`code_hash` text NOT NULL,
	`tries` integer DEFAULT 0 NOT NULL,
	`sent_at_ms` integer NOT NULL,
	`expires_at_ms` integer NOT NULL,
	PRIMARY KEY(`purpose`, `address`),
	CONSTRAINT "one_time_codes_purpose_check" CHECK(purpose in ('verify_email','verify_phone','reset_password'))
);
--> statement-breakpoint
CREATE INDEX `one_time_codes_expires_idx` ON `one_time_codes` (`expires_at_ms`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_notifications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`params_json` text DEFAULT '{}' NOT NULL,
	`dedupe_key` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`read_at_ms` integer,
	CONSTRAINT "notifications_kind_check" CHECK(kind in ('deposit_credited','deposit_rejected','withdrawal_paid','withdrawal_rejected','orders_settled','new_sign_in','limit_reached','operator_message','password_reset'))
);
--> statement-breakpoint
INSERT INTO `__new_notifications`("id", "user_id", "kind", "params_json", "dedupe_key", "created_at_ms", "read_at_ms") SELECT "id", "user_id", "kind", "params_json", "dedupe_key", "created_at_ms", "read_at_ms" FROM `notifications`;--> statement-breakpoint
DROP TABLE `notifications`;--> statement-breakpoint
ALTER TABLE `__new_notifications` RENAME TO `notifications`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_dedupe_unique` ON `notifications` (`user_id`,`dedupe_key`);--> statement-breakpoint
CREATE INDEX `notifications_user_idx` ON `notifications` (`user_id`,`id`);--> statement-breakpoint
CREATE TABLE `__new_notification_settings` (
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`push` integer NOT NULL,
	PRIMARY KEY(`user_id`, `kind`),
	CONSTRAINT "notification_settings_push_check" CHECK("__new_notification_settings"."push" in (0, 1)),
	CONSTRAINT "notification_settings_kind_check" CHECK(kind in ('deposit_credited','deposit_rejected','withdrawal_paid','withdrawal_rejected','orders_settled','new_sign_in','limit_reached','operator_message','password_reset'))
);
--> statement-breakpoint
INSERT INTO `__new_notification_settings`("user_id", "kind", "push") SELECT "user_id", "kind", "push" FROM `notification_settings`;--> statement-breakpoint
DROP TABLE `notification_settings`;--> statement-breakpoint
ALTER TABLE `__new_notification_settings` RENAME TO `notification_settings`;--> statement-breakpoint
CREATE TABLE `__new_login_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`at_ms` integer NOT NULL,
	`ok` integer NOT NULL,
	`method` text NOT NULL,
	`device` text NOT NULL,
	`ip` text NOT NULL,
	CONSTRAINT "login_attempts_method_check" CHECK("__new_login_attempts"."method" in ('password','wallet','passkey','recovery'))
);
--> statement-breakpoint
INSERT INTO `__new_login_attempts`("id", "user_id", "at_ms", "ok", "method", "device", "ip") SELECT "id", "user_id", "at_ms", "ok", "method", "device", "ip" FROM `login_attempts`;--> statement-breakpoint
DROP TABLE `login_attempts`;--> statement-breakpoint
ALTER TABLE `__new_login_attempts` RENAME TO `login_attempts`;--> statement-breakpoint
CREATE INDEX `login_attempts_user_idx` ON `login_attempts` (`user_id`,`id`);--> statement-breakpoint
ALTER TABLE `profiles` ADD `email_verified_at_ms` integer;--> statement-breakpoint
ALTER TABLE `profiles` ADD `phone_verified_at_ms` integer;--> statement-breakpoint
CREATE INDEX `profiles_email_idx` ON `profiles` (lower("email"));