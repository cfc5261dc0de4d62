CREATE TABLE `cron_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`started_at_ms` integer NOT NULL,
	`finished_at_ms` integer NOT NULL,
	`outcome` text NOT NULL,
	`jobs_json` text NOT NULL,
	`failures` integer NOT NULL,
	`overdue_orders` integer NOT NULL,
	`log_backlog` integer NOT NULL,
	`checkpoint_age_ms` integer
);
--> statement-breakpoint
CREATE INDEX `cron_runs_started_idx` ON `cron_runs` (`started_at_ms`);