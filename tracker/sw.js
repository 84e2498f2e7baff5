// The service worker, served at /sw.js (scope /) by tracker/offline.py, which
// writes VERSION, PRECACHE (the static files' URLs), STATIC_PREFIX and
// OFFLINE_URL above these lines.
//
// Readable offline, never writable: the server stays the only truth.
// - Pages this phone opened (a game's edit and view links, a table's, the home
//   page): network first. The copy kept is the last one the network gave, and
//   it is shown only when the network cannot be reached; it carries the time
//   it was fetched (data-fetched-at on <body>), which tracker.js shows.
// - Static files: from the cache (their names carry a hash), else the network.
// - Everything else (every POST, the live poll, downloads, htmx fragments) goes
//   to the network untouched: nothing is cached, queued or saved offline.
"use strict";

const STATIC_CACHE = `static-${VERSION}`;
const PAGE_CACHE = "pages-1";
const PAGES_KEPT = 40;
// "/", "/g/<token>/", "/w/<token>/", "/t/<token>/", "/tw/<token>/".
const PAGE_PATH = /^\/(?:(?:g|w|t|tw)\/[^/]+\/)?$/;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(STATIC_CACHE)
      .then((cache) => cache.addAll([...PRECACHE, OFFLINE_URL]))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("static-") && name !== STATIC_CACHE) await caches.delete(name);
      }
      await self.clients.claim();
      // The page that installed this worker loaded before it: keep it now.
      for (const client of await self.clients.matchAll({ type: "window" })) {
        const url = new URL(client.url);
        if (url.origin === self.location.origin && PAGE_PATH.test(url.pathname)) {
          try {
            await keep(url, await fetch(url.pathname, { credentials: "same-origin" }));
          } catch (error) {
            // Offline already: nothing to keep.
          }
        }
      }
    })(),
  );
});

// A page changed in place (htmx: a deal saved here, or the live poll brought a
// new board): keep its new state, as the server renders it.
self.addEventListener("message", (event) => {
  const url = new URL(String(event.data && event.data.keep), self.location.origin);
  if (url.origin !== self.location.origin || !PAGE_PATH.test(url.pathname)) return;
  event.waitUntil(
    fetch(url.pathname, { credentials: "same-origin" }).then(
      (response) => keep(url, response),
      () => {}, // offline: the copy kept stays
    ),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(page(event, request, url));
  } else if (url.pathname.startsWith(STATIC_PREFIX)) {
    event.respondWith(staticFile(request));
  }
});

async function page(event, request, url) {
  const keepable = PAGE_PATH.test(url.pathname);
  let response;
  try {
    response = await fetch(request);
  } catch (error) {
    // No network: the copy kept of this page, else the offline page.
    const cache = await caches.open(PAGE_CACHE);
    const kept = keepable && (await cache.match(pageKey(url), { ignoreVary: true }));
    if (kept) return kept;
    const offline = await caches.match(OFFLINE_URL, { ignoreVary: true });
    if (offline) return offline;
    throw error;
  }
  if (keepable) event.waitUntil(keep(url, response.clone()));
  return response;
}

function pageKey(url) {
  return url.origin + url.pathname; // ?history=all and the plain page share one copy
}

async function keep(url, response) {
  const type = response.headers.get("Content-Type") || "";
  if (!response.ok || response.type !== "basic" || !type.startsWith("text/html")) return;
  const html = await response.text();
  const fetched = new Date().toISOString();
  const marked = html.replace(/<body(?=[\s>])/, `<body data-fetched-at="${fetched}"`);
  // The same headers (the CSP with them), less those of the compressed body.
  const headers = new Headers(response.headers);
  headers.delete("Content-Encoding");
  headers.delete("Content-Length");
  const copy = new Response(marked, { status: 200, statusText: "OK", headers });
  const cache = await caches.open(PAGE_CACHE);
  await cache.put(pageKey(url), copy);
  const keys = await cache.keys();
  for (const old of keys.slice(0, Math.max(0, keys.length - PAGES_KEPT))) await cache.delete(old);
}

async function staticFile(request) {
  const cache = await caches.open(STATIC_CACHE);
  const kept = await cache.match(request, { ignoreVary: true });
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok && response.type === "basic") await cache.put(request, response.clone());
  return response;
}
