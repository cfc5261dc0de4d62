-- Deposits waiting for review, per user: at most 5 at once (worker/domain/deposits/deposits.ts
-- MAX_PENDING_DEPOSITS). In the insert itself, so parallel submissions cannot pass it together.
CREATE TRIGGER deposits_pending_quota BEFORE INSERT ON deposits
WHEN (SELECT COUNT(*) FROM deposits WHERE user_id = NEW.user_id AND status IN ('review', 'confirming')) >= 5
BEGIN
  SELECT RAISE(ABORT, 'deposits_pending_limit');
END;
