/**
 * Which of the named constraints refused a statement. D1 and drizzle wrap SQLite's message in
 * up to a few `cause` layers ("CHECK constraint failed: deposits_four_eyes"), so each layer is
 * read; the first name found (in the order given) decides. Null: not one of ours, rethrow it.
 */
export function refusedBy<T extends string>(err: unknown, names: readonly (readonly [constraint: string, status: T])[]): T | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const message = String((e as { message?: unknown }).message ?? "");
    for (const [constraint, status] of names) if (message.includes(constraint)) return status;
  }
  return null;
}
