// Links the pages (index.html the explorer, learn.html, check.html), all on the design of the
// link: a[data-carry] takes the scenario (#s=…) of the current link when followed. On the explorer,
// a glossary term opens Learn's glossary at it (learn.html#s=…&g=term) and an old ?lesson=
// link moves to Learn. On Learn, teach.js (its wasm's exports) loads once the wasm is ready
// and fills each part as it opens; a term, the link's g= and ?lesson= open their part.
// Every page registers dist/sw.js (scripts/post-build.mjs), relative: each sub-path gets its own
// worker, which caches every page. (One small script for all pages: one gzip stream less.)
// An embed link to another page (?embed=<chart>, as older snippets wrote the explorer's) moves
// to embed.html, whose wasm is the chart renderer alone (compare-* charts to compare.html).
(() => {
  const em = new URLSearchParams(location.search).get('embed');
  if (em !== null && !/\/(embed|compare)\.html$/.test(location.pathname)) {
    location.replace(`${em.startsWith('compare-') ? 'compare' : 'embed'}.html${location.search}${location.hash}`);
    return;
  }
  if ('serviceWorker' in navigator && /^https?:$/.test(location.protocol)) {
    // Registered 3 s after load: installing precaches every page (about 1.5 MB), which on a
    // 2-core machine competed with the first render's tasks for the CPU.
    addEventListener('load', () => setTimeout(() => navigator.serviceWorker.register('sw.js').catch((e) => console.warn('Fabricscope: no offline mode:', e)), 3000));
  }
  const hash = (...kv) => { const h = [(/(?:^#|&)(s=[^&]*)/.exec(location.hash) || [])[1], ...kv].filter(Boolean).join('&'); return h ? `#${h}` : ''; };
  const carry = (e) => { const a = e.target.closest?.('a[data-carry]'); if (a) a.href = a.getAttribute('href').split('#')[0] + hash(); };
  for (const t of ['pointerover', 'focusin', 'click']) addEventListener(t, carry, true);
  addEventListener('click', (e) => {
    const t = e.target.closest?.('[data-g]');
    if (t && !document.getElementById('teach-parts')) location.assign(`learn.html${hash(`g=${t.dataset.g}`)}`);
  });
})();
