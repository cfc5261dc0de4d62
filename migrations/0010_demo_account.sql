-- The demo deployment's money comes from here (worker/domain/ledger/demo.ts): a production deploy
-- without a real price feed gives each new account demo USDT, since deposits are closed there.
INSERT INTO `ledger_accounts` (`account_key`, `owner_kind`, `user_id`, `code`, `created_at_ms`) VALUES
  ('platform:demo', 'platform', NULL, 'demo', 0);
