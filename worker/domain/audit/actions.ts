/**
 * Every action the audit log records, as its code. An entry's action must be one of these (the
 * type of `auditInsert` holds it), and the console's audit page shows each one's label in the
 * reader's language (admin `action_<code with _ for .>`; a unit test enumerates them all in
 * every language). No imports: the console's page reads this module too.
 */
export const AUDIT_ACTIONS = [
  "adjustment.approve",
  "adjustment.propose",
  "adjustment.reject",
  "config.bank",
  "config.binding_wait",
  "config.deposit_channel_create",
  "config.deposit_channel_update",
  "config.deposit_four_eyes",
  "config.promotion_four_eyes",
  "config.update",
  "config.withdrawal_rule",
  "deposit.approve",
  "deposit.approve_first",
  "deposit.confirm",
  "deposit.reject",
  "miner_plan.create",
  "miner_plan.update",
  "operator.create",
  "operator.disable",
  "operator.login",
  "operator.logout",
  "operator.two_factor_enrolled",
  "pool_product.create",
  "pool_product.update",
  "product.update",
  "profile.reject",
  "profile.verify",
  "promotion.create",
  "promotion.decline",
  "promotion.grant",
  "promotion.grant_confirm",
  "promotion.grant_first",
  "promotion.grant_reject",
  "promotion.update",
  "proof.liabilities",
  "service.assign",
  "service.canned_delete",
  "service.canned_save",
  "service.close",
  "service.reopen",
  "sessions.end",
  "slide.create",
  "slide.update",
  "terms.decline",
  "terms.open",
  "terms.propose",
  "user.erase",
  "user.sessions_end",
  "withdrawal.pay",
  "withdrawal.reject",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The admin namespace's key of an action's label: "deposit.approve_first" reads as `action_deposit_approve_first`. */
export function auditActionKey(action: string): string {
  return `action_${action.replace(/\./g, "_")}`;
}
