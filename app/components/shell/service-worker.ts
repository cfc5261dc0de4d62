import { useEffect } from "react";

/**
 * Registers /sw.js (public/sw.js) under the Remix build's version, so every deploy installs a
 * fresh worker with its own cache. The files this first page loaded before the worker took
 * control are handed to it, so the shell is on the phone after one visit.
 */
export function useServiceWorker() {
  useEffect(() => {
    if (!("serviceWorker" in navigator)) return;
    const version = (window as { __remixManifest?: { version?: string } }).__remixManifest?.version ?? "dev";
    navigator.serviceWorker
      .register(`/sw.js?v=${encodeURIComponent(version)}`, { scope: "/" })
      .then(() => navigator.serviceWorker.ready)
      .then((registration) => registration.active?.postMessage({ type: "cache-shell", urls: loadedBuildFiles() }))
      .catch((err) => console.warn("service worker", err));
  }, []);
}

function loadedBuildFiles(): string[] {
  return performance
    .getEntriesByType("resource")
    .map((entry) => entry.name)
    .filter((name) => new URL(name, location.href).pathname.startsWith("/build/"));
}
