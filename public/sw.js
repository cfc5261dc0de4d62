/*
 * Proofline's service worker: makes the app installable and keeps the shell on the phone.
 *
 * What it keeps: the offline page, the icons and manifest (at install), and the build's
 * JavaScript and CSS (content-hashed, so a cached copy is never stale). What it never keeps,
 * never even touches: API answers (/api/), sockets (/ws/), private uploads (/files/), Remix's
 * data requests (*.data), and HTML pages: a balance or an order must never be shown from a
 * copy. A navigation always goes to the network; only when the network is gone does it get
 * the offline page.
 *
 * Versioned by the build: the page registers /sw.js?v=<Remix build version>, so each deploy
 * installs a new worker with its own cache and drops the old one.
 */
const VERSION = new URL(self.location.href).searchParams.get("v") || "dev";
const PREFIX = "proofline-shell-";
const CACHE = PREFIX + VERSION;
const OFFLINE = "/offline.html";
const SHELL = [OFFLINE, "/manifest.webmanifest", "/favicon.svg", "/icons/icon-192.png", "/icons/icon-512.png", "/icons/icon-maskable-512.png", "/icons/apple-touch-icon-180.png"];

/** Paths the worker leaves to the browser: live or private, never cached. */
function untouched(url) {
  const p = url.pathname;
  return p === "/api" || p.startsWith("/api/") || p.startsWith("/ws/") || p.startsWith("/files/") || p.endsWith(".data");
}

/** Static files that may be answered from the cache. */
function isStatic(url) {
  const p = url.pathname;
  return p.startsWith("/build/") || p.startsWith("/icons/") || p.startsWith("/banners/") || p === "/favicon.svg";
}

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  const old = caches.keys().then((keys) => Promise.all(keys.filter((k) => k.startsWith(PREFIX) && k !== CACHE).map((k) => caches.delete(k))));
  event.waitUntil(old.then(() => self.clients.claim()));
});

/** The page sends the build files it loaded before this worker controlled it (first visit). */
self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type !== "cache-shell" || !Array.isArray(data.urls)) return;
  const urls = data.urls.map((u) => new URL(u, self.location.origin)).filter((u) => u.origin === self.location.origin && isStatic(u));
  event.waitUntil(caches.open(CACHE).then((cache) => Promise.all(urls.map((u) => cache.add(u.pathname).catch(() => undefined)))));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || untouched(url)) return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(offlinePage));
    return;
  }
  if (isStatic(url)) event.respondWith(cacheFirst(request));
});

/**
 * The stored offline page as a fresh 200. The static host may have reached it through a
 * redirect (/offline.html → /offline), and a redirected response cannot answer a navigation.
 */
async function offlinePage() {
  const cached = await caches.match(OFFLINE);
  if (!cached) return Response.error();
  return new Response(cached.body, { status: 200, headers: cached.headers });
}

async function cacheFirst(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request);
  if (hit) return hit;
  const response = await fetch(request);
  // Only good same-origin files, and never an HTML page (an error page served at a file's path).
  const type = response.headers.get("content-type") || "";
  if (response.ok && response.type === "basic" && !type.includes("text/html")) await cache.put(request, response.clone());
  return response;
}

/*
 * Web Push: the server sends each notice encrypted to this install (RFC 8291); the browser
 * decrypts it, and here it becomes a system notification with the words already in the user's
 * language (title, body), the page to open (url) and a tag (a newer notice of the same event
 * replaces an older one). A push without a readable payload still shows something: browsers
 * require every push to show a notification.
 */
self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  const title = typeof data.title === "string" && data.title ? data.title : "Proofline";
  const options = {
    body: typeof data.body === "string" ? data.body : "",
    tag: typeof data.tag === "string" ? data.tag : undefined,
    lang: typeof data.lang === "string" ? data.lang : undefined,
    icon: "/icons/icon-192.png",
    badge: "/icons/icon-192.png",
    data: { url: safePath(data.url) },
  };
  event.waitUntil(self.registration.showNotification(title, options));
});

/** Only a path on this site: a push can never send the user elsewhere. */
function safePath(url) {
  return typeof url === "string" && url.startsWith("/") && !url.startsWith("//") ? url : "/pages/me/sub/notifications";
}

/** Tapping the notification: focus an open window of the app on that page, or open one. */
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL(safePath(event.notification.data && event.notification.data.url), self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const open = windows.find((w) => new URL(w.url).origin === self.location.origin);
      if (open) return open.navigate(target).then((w) => (w || open).focus());
      return self.clients.openWindow(target);
    }),
  );
});
