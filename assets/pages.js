// Every page (index.html the explorer, learn.html, check.html): register dist/sw.js (relative:
// each sub-path gets its own worker, which caches every page); a[data-carry] takes the scenario
// (#s=…) of the current link when followed, so each page opens the others on the same design;
// in the explorer a glossary term opens Learn's glossary at it (learn.html#s=…&g=term).
// Learn's own behaviour lives in teach.js.
(() => {
  if ('serviceWorker' in navigator && /^https?:$/.test(location.protocol)) {
    addEventListener('load', () => navigator.serviceWorker.register('sw.js').catch((e) => console.warn('Fabricscope: no offline mode:', e)));
  }
  const hash = (...kv) => { const h = [(/(?:^#|&)(s=[^&]*)/.exec(location.hash) || [])[1], ...kv].filter(Boolean).join('&'); return h ? `#${h}` : ''; };
  const carry = (e) => { const a = e.target.closest?.('a[data-carry]'); if (a) a.href = a.getAttribute('href').split('#')[0] + hash(); };
  for (const t of ['pointerover', 'focusin', 'click']) addEventListener(t, carry, true);
  addEventListener('click', (e) => {
    const t = e.target.closest?.('[data-g]');
    if (t && !document.getElementById('teach-parts')) location.assign(`learn.html${hash(`g=${t.dataset.g}`)}`);
  });
})();
