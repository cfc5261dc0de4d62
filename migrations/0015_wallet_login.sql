CREATE TABLE `wallet_nonces` (
	`nonce` text PRIMARY KEY NOT NULL,
	`created_at_ms` integer NOT NULL,
	`expires_at_ms` integer NOT NULL,
	`used_at_ms` integer
);
--> statement-breakpoint
CREATE INDEX `wallet_nonces_expires_idx` ON `wallet_nonces` (`expires_at_ms`);--> statement-breakpoint
-- hand-written below
-- A consumed nonce stays consumed: no code path can hand one signed message a second sign-in.
CREATE TRIGGER `wallet_nonces_used_once` BEFORE UPDATE OF `used_at_ms` ON `wallet_nonces`
WHEN OLD.`used_at_ms` IS NOT NULL
BEGIN
  SELECT RAISE(ABORT, 'wallet nonce already used');
END;
