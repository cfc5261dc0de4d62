ALTER TABLE `order_ticks` ADD `trade_id` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `feed` text DEFAULT 'simulation' NOT NULL;