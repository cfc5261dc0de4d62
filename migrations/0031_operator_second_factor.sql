CREATE TABLE `operator_two_factor` (
	`operator_id` integer PRIMARY KEY NOT NULL,
	`secret` text NOT NULL,
	`enabled_at_ms` integer,
	`last_step` integer DEFAULT 0 NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `sessions` ADD `step_up_at_ms` integer;