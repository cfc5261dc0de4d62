CREATE TABLE `promotion_bookings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`promotion_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`status` text NOT NULL,
	`booked_at_ms` integer NOT NULL,
	`deposit_id` integer,
	`bonus_micro` integer,
	`granted_by` integer,
	`confirmed_by` integer,
	`four_eyes_micro` integer,
	`declined_by` integer,
	`decline_reason` text DEFAULT '' NOT NULL,
	`decided_at_ms` integer,
	CONSTRAINT "promotion_bookings_bonus_positive" CHECK("promotion_bookings"."bonus_micro" IS NULL OR "promotion_bookings"."bonus_micro" > 0),
	CONSTRAINT "promotion_bookings_four_eyes" CHECK("promotion_bookings"."confirmed_by" IS NULL OR "promotion_bookings"."confirmed_by" <> "promotion_bookings"."granted_by"),
	CONSTRAINT "promotion_bookings_large_needs_two" CHECK("promotion_bookings"."status" <> 'granted' OR ("promotion_bookings"."deposit_id" IS NOT NULL AND "promotion_bookings"."bonus_micro" IS NOT NULL AND "promotion_bookings"."four_eyes_micro" IS NOT NULL AND "promotion_bookings"."granted_by" IS NOT NULL AND ("promotion_bookings"."bonus_micro" < "promotion_bookings"."four_eyes_micro" OR ("promotion_bookings"."confirmed_by" IS NOT NULL AND "promotion_bookings"."confirmed_by" <> "promotion_bookings"."granted_by"))))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `promotion_bookings_once` ON `promotion_bookings` (`promotion_id`,`user_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `promotion_bookings_deposit_once` ON `promotion_bookings` (`deposit_id`) WHERE "promotion_bookings"."status" IN ('pending', 'granted');--> statement-breakpoint
CREATE INDEX `promotion_bookings_user_idx` ON `promotion_bookings` (`user_id`);--> statement-breakpoint
CREATE INDEX `promotion_bookings_status_idx` ON `promotion_bookings` (`status`,`id`);--> statement-breakpoint
CREATE TABLE `promotions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`texts_json` text NOT NULL,
	`percent_bp` integer NOT NULL,
	`cap_micro` integer NOT NULL,
	`min_deposit_micro` integer NOT NULL,
	`starts_at_ms` integer NOT NULL,
	`ends_at_ms` integer NOT NULL,
	`enabled` integer DEFAULT 1 NOT NULL,
	`terms_by` integer,
	`opened_by` integer,
	`sort` integer DEFAULT 0 NOT NULL,
	`created_at_ms` integer NOT NULL,
	CONSTRAINT "promotions_four_eyes" CHECK("promotions"."enabled" = 0 OR "promotions"."terms_by" IS NULL OR ("promotions"."opened_by" IS NOT NULL AND "promotions"."opened_by" <> "promotions"."terms_by")),
	CONSTRAINT "promotions_valid" CHECK("promotions"."percent_bp" > 0 AND "promotions"."percent_bp" <= 10000 AND "promotions"."cap_micro" > 0 AND "promotions"."min_deposit_micro" > 0 AND "promotions"."ends_at_ms" > "promotions"."starts_at_ms")
);
--> statement-breakpoint
-- hand-written below
-- A promotion's money terms are frozen once a bonus under them is pending or paid: what was
-- granted stays explainable by the terms the promotion shows.
CREATE TRIGGER `promotions_terms_frozen` BEFORE UPDATE OF `percent_bp`, `cap_micro`, `min_deposit_micro` ON `promotions`
WHEN (NEW.`percent_bp` <> OLD.`percent_bp` OR NEW.`cap_micro` <> OLD.`cap_micro` OR NEW.`min_deposit_micro` <> OLD.`min_deposit_micro`)
  AND EXISTS (SELECT 1 FROM `promotion_bookings` WHERE `promotion_id` = OLD.`id` AND `status` IN ('pending', 'granted'))
BEGIN
  SELECT RAISE(ABORT, 'promotion_terms_frozen');
END;
--> statement-breakpoint
-- Bookings are never removed: a user's state (booked, granted, declined) is history.
CREATE TRIGGER `promotion_bookings_no_delete` BEFORE DELETE ON `promotion_bookings`
BEGIN
  SELECT RAISE(ABORT, 'promotion_bookings are kept');
END;
--> statement-breakpoint
-- A decided booking (granted or declined) is history: its bonus, deposit and deciders never change.
CREATE TRIGGER `promotion_bookings_decided_frozen` BEFORE UPDATE ON `promotion_bookings` WHEN OLD.`status` IN ('granted', 'declined')
BEGIN
  SELECT RAISE(ABORT, 'decided promotion bookings are immutable');
END;
