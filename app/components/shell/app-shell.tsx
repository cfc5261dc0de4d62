import { useEffect, type ReactNode } from "react";
import { rememberPlatform } from "../../lib/platform";
import { PageTransition } from "./page-transition";
import { useServiceWorker } from "./service-worker";
import { SlowNavigation } from "./slow-navigation";

/**
 * What makes the pages an installable app: the service worker, the platform flag, the page
 * transition and the slow-navigation view. (The loading mask after 200 ms is the UiProvider's.)
 */
export function AppShell({ children }: { children: ReactNode }) {
  useServiceWorker();
  useEffect(rememberPlatform, []);
  return (
    <>
      <PageTransition>{children}</PageTransition>
      <SlowNavigation />
    </>
  );
}
