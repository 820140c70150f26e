// Links the pages (index.html the explorer, learn.html, check.html), all on the design of the
// link: a[data-carry] takes the scenario (#s=…) of the current link when followed. On the explorer,
// a glossary term opens Learn's glossary at it (learn.html#s=…&g=term) and an old ?lesson=
// link moves to Learn. On Learn, teach.js (its wasm's exports) loads once the wasm is ready
// and fills each part as it opens; a term, the link's g= and ?lesson= open their part.
// Every page registers dist/sw.js (scripts/post-build.mjs), relative: each sub-path gets its own
// worker, which caches every page. (One small script for all pages: one gzip stream less.)
(() => {
  if ('serviceWorker' in navigator && /^https?:$/.test(location.protocol)) {
    addEventListener('load', () => navigator.serviceWorker.register('sw.js').catch((e) => console.warn('Fabricscope: offline mode unavailable:', e)));
  }
  const scenario = () => (/(?:^#|&)(s=[^&]*)/.exec(location.hash) || [])[1];
  const hash = (...kv) => { const h = [scenario(), ...kv].filter(Boolean).join('&'); return h ? `#${h}` : ''; };
  const carry = (e) => { const a = e.target.closest?.('a[data-carry]'); if (a) a.href = a.getAttribute('href').split('#')[0] + hash(); };
  for (const t of ['pointerover', 'focusin', 'click']) addEventListener(t, carry, true);
  // Listened for now: the wasm loader may finish before the page is parsed.
  const ready = new Promise((ok) => (window.wasmBindings ? ok() : addEventListener('TrunkApplicationStarted', ok, { once: true })));
  // This script runs in <head>: which page this is shows once the body is parsed.
  addEventListener('DOMContentLoaded', () => {
    const learn = document.getElementById('teach-parts');
    if (!learn) {
      if (/[?&]lesson=/.test(location.search)) location.replace(`learn.html${location.search}${hash()}`);
      addEventListener('click', (e) => { const t = e.target.closest?.('[data-g]'); if (t) location.assign(`learn.html${hash(`g=${t.dataset.g}`)}`); });
      return;
    }
    let mod;
    const load = () => (mod ||= ready.then(() => import(new URL('teach.js', document.baseURI).href)));
    const open = (d) => d.open && d.parentElement === learn && load().then((m) => m.open(d.id));
    const term = (id) => id && load().then((m) => m.term(id));
    addEventListener('toggle', (e) => open(e.target), true);
    addEventListener('click', (e) => term(e.target.closest?.('[data-g]')?.dataset.g));
    const linked = () => term((/(?:^#|&)g=([\w-]+)/.exec(location.hash) || [])[1]);
    addEventListener('hashchange', linked);
    ready.then(() => {
      if (/[?&]lesson=/.test(location.search)) document.getElementById('t-lessons').open = true;
      for (const d of learn.children) open(d);
      linked();
    });
  });
})();
