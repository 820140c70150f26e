// Fabricscope's offline service worker. This file is a TEMPLATE: scripts/post-build.mjs (a
// Trunk post_build hook) fills in the cache version and the list of files of the build it
// belongs to (Trunk's hashed names) and writes the result to dist/sw.js.
//
// Strategy: every file of the build is fetched into one cache on install. Page loads
// (navigations) go to the network first, so a new deploy shows at once, and fall back offline
// to the cached page (learn.html or index.html, whatever the query), else to index.html;
// everything else is served from the cache first (hashed names never change content).
// On activate, caches of other versions of this same deployment
// (same scope) are deleted, so a new deploy replaces the old cache cleanly.

const VERSION = '__FABRICSCOPE_CACHE_VERSION__';
const FILES = __FABRICSCOPE_PRECACHE__;
const PREFIX = `fabricscope:${self.registration.scope}:`;
const CACHE = PREFIX + VERSION;
const SHELL = new URL('index.html', self.registration.scope).href;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      // Hashed files may come from the HTTP cache (the page has just fetched them: no second
      // download); the pages must be fresh.
      .then((cache) => cache.addAll(FILES.map((f) => new Request(new URL(f, self.registration.scope), { cache: f === './' || f.endsWith('.html') ? 'reload' : 'default' }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith(PREFIX) && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== self.location.origin) return;
  if (req.mode === 'navigate') {
    event.respondWith(
      fetch(req).catch(() => caches.open(CACHE).then((c) => c.match(req, { ignoreSearch: true }).then((hit) => hit || c.match(SHELL))).then((hit) => hit || Response.error())),
    );
    return;
  }
  event.respondWith(
    caches.open(CACHE).then((c) => c.match(req, { ignoreSearch: true })).then((hit) => hit || fetch(req)),
  );
});

