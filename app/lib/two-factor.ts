import { useRouteLoaderData } from "@remix-run/react";
import type { UserInfo } from "./types";

/**
 * Whether the signed-in user has two-factor on (the root loader's user): forms then show the
 * code field where the API asks for a code, and only then.
 */
export function useTwoFactorOn(): boolean {
  const root = useRouteLoaderData("root") as { user?: UserInfo | null } | undefined;
  return root?.user?.two_factor === true;
}

/** The fields a proof-taking form must have filled before it is sent. */
export const proofFields = (twoFactor: boolean) => (twoFactor ? ["password", "code"] : ["password"]);
