CREATE TABLE `notification_settings` (
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`push` integer NOT NULL,
	PRIMARY KEY(`user_id`, `kind`),
	CONSTRAINT "notification_settings_push_check" CHECK("notification_settings"."push" in (0, 1)),
	CONSTRAINT "notification_settings_kind_check" CHECK(kind in ('deposit_credited','deposit_rejected','withdrawal_paid','withdrawal_rejected','orders_settled','new_sign_in','limit_reached','operator_message'))
);
--> statement-breakpoint
CREATE TABLE `push_subscriptions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`endpoint` text NOT NULL,
	`p256dh` text NOT NULL,
	`auth` text NOT NULL,
	`device` text DEFAULT '' NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `push_subscriptions_endpoint_unique` ON `push_subscriptions` (`endpoint`);--> statement-breakpoint
CREATE INDEX `push_subscriptions_user_idx` ON `push_subscriptions` (`user_id`);--> statement-breakpoint
CREATE TABLE `push_vapid_local` (
	`id` integer PRIMARY KEY NOT NULL,
	`private_jwk` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	CONSTRAINT "push_vapid_local_one_row" CHECK("push_vapid_local"."id" = 1)
);
