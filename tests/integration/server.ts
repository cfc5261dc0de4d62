import { vi } from "vitest";

/** Waits until the `wrangler dev` at `base` answers its health check; it can take a while to start. */
export async function serverUp(base: string, timeout: number, interval: number) {
  await vi.waitFor(
    async () => {
      // Refused or not ok while it starts: waitFor tries again.
      if (!(await fetch(`${base}/api/health`)).ok) throw new Error(`${base} is not up yet`);
    },
    { timeout, interval },
  );
}
