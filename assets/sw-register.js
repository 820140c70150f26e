// Registers dist/sw.js (scripts/post-build.mjs), relative: each sub-path gets its own worker.
if ('serviceWorker' in navigator && /^https?:$/.test(location.protocol)) {
  addEventListener('load', () => navigator.serviceWorker.register('sw.js').catch((e) => console.warn('Fabricscope: offline mode unavailable:', e)));
}
