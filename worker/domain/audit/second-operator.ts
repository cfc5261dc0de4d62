/**
 * A setting that decides where money goes or what the platform pays (an earn product's terms, a
 * deposit channel's xpub) needs two operators: whoever set it cannot also open it. Saving new
 * terms closes the thing; a different operator opens it. The demo seed (operator null) sets
 * values nobody needs to check. Tables that use this carry a CHECK holding the same rule.
 */
export type OpenState = { enabled: number; terms_by: number | null; opened_by: number | null };

/** The open state after a save, or null when this operator may not open what they set. */
export function openState(operator_id: number | null, before: OpenState | null, wantOpen: boolean, termsChanged: boolean): OpenState | null {
  if (operator_id === null) return { enabled: wantOpen ? 1 : 0, terms_by: null, opened_by: null };
  if (!before || termsChanged) return { enabled: 0, terms_by: operator_id, opened_by: null };
  if (!wantOpen) return { enabled: 0, terms_by: before.terms_by, opened_by: before.opened_by };
  if (before.enabled === 1) return { enabled: 1, terms_by: before.terms_by, opened_by: before.opened_by };
  if (before.terms_by === operator_id) return null;
  return { enabled: 1, terms_by: before.terms_by, opened_by: operator_id };
}
