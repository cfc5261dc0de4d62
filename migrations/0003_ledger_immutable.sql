-- Transfers are immutable: corrections are new transfers, never edits.
CREATE TRIGGER `ledger_transfers_no_update` BEFORE UPDATE ON `ledger_transfers`
BEGIN
  SELECT RAISE(ABORT, 'ledger_transfers is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `ledger_transfers_no_delete` BEFORE DELETE ON `ledger_transfers`
BEGIN
  SELECT RAISE(ABORT, 'ledger_transfers is append-only');
END;
--> statement-breakpoint
-- The platform's own accounts (docs/architecture.md, Money).
INSERT INTO `ledger_accounts` (`account_key`, `owner_kind`, `user_id`, `code`, `created_at_ms`) VALUES
  ('platform:deposits', 'platform', NULL, 'deposits', 0),
  ('platform:withdrawals', 'platform', NULL, 'withdrawals', 0),
  ('platform:fees', 'platform', NULL, 'fees', 0),
  ('platform:trading', 'platform', NULL, 'trading', 0),
  ('platform:rewards', 'platform', NULL, 'rewards', 0),
  ('platform:promotions', 'platform', NULL, 'promotions', 0);
