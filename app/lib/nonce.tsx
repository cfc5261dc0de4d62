import { createContext, useContext, type ReactNode } from "react";

/**
 * The page answer's script nonce, for the inline scripts the server renders. In the browser it
 * is "": browsers hide nonce attributes from scripts, and hydration leaves them as rendered.
 */
const NonceContext = createContext("");

export function NonceProvider({ value, children }: { value: string; children: ReactNode }) {
  return <NonceContext.Provider value={value}>{children}</NonceContext.Provider>;
}

export function useNonce(): string {
  return useContext(NonceContext);
}
