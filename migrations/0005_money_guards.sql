-- State changes are history: never edited, never removed.
CREATE TRIGGER `transitions_no_update` BEFORE UPDATE ON `transitions`
BEGIN
  SELECT RAISE(ABORT, 'transitions is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `transitions_no_delete` BEFORE DELETE ON `transitions`
BEGIN
  SELECT RAISE(ABORT, 'transitions is append-only');
END;
--> statement-breakpoint
-- Operator corrections move money from/to this platform account, visibly.
INSERT INTO `ledger_accounts` (`account_key`, `owner_kind`, `user_id`, `code`, `created_at_ms`) VALUES
  ('platform:adjustments', 'platform', NULL, 'adjustments', 0);
