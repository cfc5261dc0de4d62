CREATE TABLE `service_canned` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`lang` text NOT NULL,
	`title` text NOT NULL,
	`text` text NOT NULL,
	`updated_by` integer NOT NULL,
	`updated_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `service_canned_lang_idx` ON `service_canned` (`lang`,`id`);--> statement-breakpoint
CREATE TABLE `service_contexts` (
	`conversation_id` integer NOT NULL,
	`kind` text NOT NULL,
	`ref_id` integer NOT NULL,
	`created_at_ms` integer NOT NULL,
	PRIMARY KEY(`conversation_id`, `kind`, `ref_id`),
	CONSTRAINT "service_contexts_kind_check" CHECK("service_contexts"."kind" in ('order','deposit','withdrawal','promotion'))
);
--> statement-breakpoint
CREATE TABLE `service_conversations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer,
	`guest_token_hash` text,
	`guest_lang` text,
	`status` text DEFAULT 'open' NOT NULL,
	`assigned_operator_id` integer,
	`visitor_delivered_id` integer DEFAULT 0 NOT NULL,
	`visitor_read_id` integer DEFAULT 0 NOT NULL,
	`operator_delivered_id` integer DEFAULT 0 NOT NULL,
	`operator_read_id` integer DEFAULT 0 NOT NULL,
	`last_message_at_ms` integer,
	`last_message_preview` text DEFAULT '' NOT NULL,
	`merged_into_id` integer,
	`created_at_ms` integer NOT NULL,
	CONSTRAINT "service_conversations_status_check" CHECK("service_conversations"."status" in ('open','closed')),
	CONSTRAINT "service_conversations_one_owner" CHECK(NOT ("service_conversations"."user_id" IS NOT NULL AND "service_conversations"."guest_token_hash" IS NOT NULL))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `service_conversations_user_unique` ON `service_conversations` (`user_id`) WHERE "service_conversations"."user_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `service_conversations_guest_unique` ON `service_conversations` (`guest_token_hash`) WHERE "service_conversations"."guest_token_hash" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `service_conversations_inbox_idx` ON `service_conversations` (`status`,`last_message_at_ms`);--> statement-breakpoint
CREATE TABLE `service_messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`conversation_id` integer NOT NULL,
	`author` text NOT NULL,
	`client_message_id` text,
	`operator_id` integer,
	`text` text,
	`upload_id` text,
	`created_at_ms` integer NOT NULL,
	CONSTRAINT "service_messages_author_check" CHECK("service_messages"."author" in ('visitor','operator','system')),
	CONSTRAINT "service_messages_operator_check" CHECK(("service_messages"."author" = 'operator') = ("service_messages"."operator_id" IS NOT NULL)),
	CONSTRAINT "service_messages_body_check" CHECK("service_messages"."text" IS NOT NULL OR "service_messages"."upload_id" IS NOT NULL),
	CONSTRAINT "service_messages_text_length" CHECK("service_messages"."text" IS NULL OR length("service_messages"."text") <= 2000)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `service_messages_client_unique` ON `service_messages` (`conversation_id`,`author`,`client_message_id`);--> statement-breakpoint
CREATE INDEX `service_messages_conversation_idx` ON `service_messages` (`conversation_id`,`id`);--> statement-breakpoint
CREATE INDEX `service_messages_rate_idx` ON `service_messages` (`conversation_id`,`author`,`created_at_ms`);--> statement-breakpoint
CREATE TABLE `service_uploads` (
	`upload_id` text PRIMARY KEY NOT NULL,
	`conversation_id` integer NOT NULL,
	`author` text NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `service_uploads_conversation_idx` ON `service_uploads` (`conversation_id`);