import type { ClientActionFunctionArgs } from "@remix-run/react";

/**
 * Every route with an action exports this as its clientAction: a network failure becomes
 * `{network: true}` (the page shows the 2 s 'error' toast) instead of an error page.
 */
export async function clientAction({ serverAction }: ClientActionFunctionArgs) {
  try {
    return await serverAction();
  } catch (err) {
    if (err instanceof Response) throw err;
    if (err instanceof TypeError) return { status: 0, code: 0 as const, msg: "", data: null, network: true };
    throw err;
  }
}
