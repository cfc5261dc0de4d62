CREATE TABLE `known_devices` (
	`user_id` integer NOT NULL,
	`device` text NOT NULL,
	`ip` text NOT NULL,
	`first_seen_at_ms` integer NOT NULL,
	PRIMARY KEY(`user_id`, `device`, `ip`)
);
--> statement-breakpoint
CREATE TABLE `login_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`at_ms` integer NOT NULL,
	`ok` integer NOT NULL,
	`method` text NOT NULL,
	`device` text NOT NULL,
	`ip` text NOT NULL,
	CONSTRAINT "login_attempts_method_check" CHECK("login_attempts"."method" in ('password','wallet','passkey'))
);
--> statement-breakpoint
CREATE INDEX `login_attempts_user_idx` ON `login_attempts` (`user_id`,`id`);--> statement-breakpoint
CREATE TABLE `passkeys` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`public_key` text NOT NULL,
	`counter` integer DEFAULT 0 NOT NULL,
	`transports` text DEFAULT '' NOT NULL,
	`created_at_ms` integer NOT NULL,
	`last_used_at_ms` integer
);
--> statement-breakpoint
CREATE INDEX `passkeys_user_idx` ON `passkeys` (`user_id`);--> statement-breakpoint
CREATE TABLE `webauthn_challenges` (
	`challenge` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`user_id` integer,
	`created_at_ms` integer NOT NULL,
	`expires_at_ms` integer NOT NULL,
	`used_at_ms` integer,
	CONSTRAINT "webauthn_challenges_purpose_check" CHECK("webauthn_challenges"."purpose" in ('register','login'))
);
--> statement-breakpoint
CREATE INDEX `webauthn_challenges_expires_idx` ON `webauthn_challenges` (`expires_at_ms`);--> statement-breakpoint
ALTER TABLE `sessions` ADD `public_id` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `device` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `ip` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `sessions_public_id_unique` ON `sessions` (`public_id`);--> statement-breakpoint
-- hand-written below
-- Sessions opened before this migration get a random public id, so they can be listed and ended.
UPDATE `sessions` SET `public_id` = lower(hex(randomblob(16))) WHERE `public_id` IS NULL;
