-- Web Push subscriptions per user: at most 5 devices (worker/push/send.ts MAX_PUSH_SUBSCRIPTIONS,
-- decision 114). In the statement itself, so parallel subscriptions cannot pass it together.
-- A new endpoint of a user who has 5 is refused; an endpoint already stored (the same install
-- subscribing again) passes the insert and becomes an update, checked below when it changes owner.
CREATE TRIGGER push_subscriptions_quota BEFORE INSERT ON push_subscriptions
WHEN (SELECT COUNT(*) FROM push_subscriptions WHERE user_id = NEW.user_id) >= 5
  AND NOT EXISTS (SELECT 1 FROM push_subscriptions WHERE endpoint = NEW.endpoint)
BEGIN
  SELECT RAISE(ABORT, 'push_subscriptions_limit');
END;
--> statement-breakpoint
-- An install that was another user's moves to this one only if they have room.
CREATE TRIGGER push_subscriptions_quota_move BEFORE UPDATE OF user_id ON push_subscriptions
WHEN NEW.user_id <> OLD.user_id
  AND (SELECT COUNT(*) FROM push_subscriptions WHERE user_id = NEW.user_id) >= 5
BEGIN
  SELECT RAISE(ABORT, 'push_subscriptions_limit');
END;
