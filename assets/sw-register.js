// Registers the offline service worker (dist/sw.js, generated at build time by
// scripts/post-build.mjs). The URL is relative, so a copy under any sub-path registers its
// own worker for its own directory.
if ('serviceWorker' in navigator && /^https?:$/.test(location.protocol)) {
  addEventListener('load', () => {
    navigator.serviceWorker.register('sw.js').catch((e) => console.warn('Fabricscope: offline mode unavailable:', e));
  });
}
