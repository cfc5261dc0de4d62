CREATE TABLE `solo_credit_limits` (
	`key` text PRIMARY KEY NOT NULL,
	`micro` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `deposits` ADD `wait_reason` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `deposits_solo_idx` ON `deposits` (`approved_by`,`decided_at_ms`);--> statement-breakpoint
-- What one operator may credit alone in a rolling 24 hours (USDT micro-units). Changed only by a
-- new migration: the triggers below refuse any other change.
INSERT INTO `solo_credit_limits` (`key`, `micro`) VALUES ('deposit_operator_24h', 20000000000), ('deposit_user_24h', 5000000000);--> statement-breakpoint
CREATE TRIGGER `solo_credit_limits_no_update` BEFORE UPDATE ON `solo_credit_limits`
BEGIN SELECT RAISE(ABORT, 'solo_credit_limits are set by migrations'); END;--> statement-breakpoint
CREATE TRIGGER `solo_credit_limits_no_delete` BEFORE DELETE ON `solo_credit_limits`
BEGIN SELECT RAISE(ABORT, 'solo_credit_limits are set by migrations'); END;--> statement-breakpoint
-- A deposit approved by one operator alone (no confirmer): never above what the user claimed,
-- and within that operator's and that user's rolling 24 h totals of solo credits. Anything else
-- must go through `confirming` and a second, different operator.
CREATE TRIGGER `deposits_solo_credit` BEFORE UPDATE OF `status` ON `deposits`
WHEN NEW.`status` = 'approved' AND NEW.`confirmed_by` IS NULL
BEGIN
  SELECT RAISE(ABORT, 'deposits_solo_above_claim') WHERE NEW.`credited_micro` > NEW.`amount_micro` OR NEW.`decided_at_ms` IS NULL;
  SELECT RAISE(ABORT, 'deposits_solo_operator_total')
  WHERE NEW.`credited_micro` + (SELECT COALESCE(SUM(`credited_micro`), 0) FROM `deposits` d
    WHERE d.`approved_by` = NEW.`approved_by` AND d.`status` = 'approved' AND d.`confirmed_by` IS NULL AND d.`decided_at_ms` > NEW.`decided_at_ms` - 86400000)
    > COALESCE((SELECT `micro` FROM `solo_credit_limits` WHERE `key` = 'deposit_operator_24h'), 0);
  SELECT RAISE(ABORT, 'deposits_solo_user_total')
  WHERE NEW.`credited_micro` + (SELECT COALESCE(SUM(`credited_micro`), 0) FROM `deposits` d
    WHERE d.`user_id` = NEW.`user_id` AND d.`status` = 'approved' AND d.`confirmed_by` IS NULL AND d.`decided_at_ms` > NEW.`decided_at_ms` - 86400000)
    > COALESCE((SELECT `micro` FROM `solo_credit_limits` WHERE `key` = 'deposit_user_24h'), 0);
END;
