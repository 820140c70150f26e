// Links the pages (index.html the explorer, learn.html, check.html), all on the design of the
// link: a[data-carry] takes the scenario (#s=…) of the current link when followed. A glossary
// term (button[data-g]) shows its definition in place, under the term, on every page (read from
// glossary.json when first asked), with a link to Learn's whole glossary; Escape or its close
// button puts it away and returns the focus to the term. An old ?lesson= link moves to Learn. Learn itself is a Rust page (src/learn):
// its wasm fills each part as it opens; a term, the link's g= and ?lesson= open their part.
// Every page registers dist/sw.js (scripts/post-build.mjs), relative: each sub-path gets its own
// worker, which caches every page. (One small script for all pages: one gzip stream less.)
// An embed link to another page (?embed=<chart>, as older snippets wrote the explorer's) moves
// to embed.html, whose wasm is the chart renderer alone (compare-* charts to compare.html).
(() => {
  // A link whose cluster carries a calibration (its own logs' fit, check.html) opens
  // measured.html, the explorer built with it: index.html's wasm reads none (Cargo.toml's
  // `calibrate`), so the explorer's first load stays inside its budget.
  const measured = () => {
    const s = /(?:^#|&)s=v1\.([^&]*)/.exec(location.hash)?.[1];
    try {
      if (s && /\/(index\.html)?$/.test(location.pathname) && atob(s.replace(/-/g, '+').replace(/_/g, '/')).includes('"cluster.calibration"')) {
        location.replace(`measured.html${location.search}${location.hash}`);
        return true;
      }
    } catch {}
    return false;
  };
  if (measured()) return;
  addEventListener('hashchange', measured);
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
  let terms;
  const close = (pop, focus) => { const t = document.querySelector(`[aria-controls="${pop.id}"]`); pop.remove(); if (t) { t.setAttribute('aria-expanded', 'false'); if (focus) t.focus(); } };
  const mk = (tag, props, ...kids) => { const e = Object.assign(document.createElement(tag), props); e.append(...kids); return e; };
  addEventListener('click', async (e) => {
    const t = e.target.closest?.('button[data-g]');
    if (!t) return;
    const id = t.dataset.g;
    const open = document.getElementById(`gp-${id}`);
    document.querySelectorAll('.gloss-pop').forEach((p) => close(p, false));
    if (open) return;
    terms ||= fetch('glossary.json').then((r) => r.json()).then((g) => g.terms).catch(() => null);
    const def = (await terms)?.find((x) => x.id === id);
    const more = mk('a', { href: `learn.html${hash(`g=${id}`)}`, textContent: 'All terms in Learn\'s glossary' });
    const x = mk('button', { type: 'button', className: 'gloss-close', textContent: '×' });
    x.setAttribute('aria-label', `Close the definition of ${def?.term ?? id}`);
    const pop = mk('span', { id: `gp-${id}`, className: 'gloss-pop', tabIndex: -1 },
      ...(def ? [mk('strong', { textContent: def.term }), ` ${def.text}${def.unit ? ` Unit: ${def.unit}.` : ''} `] : ['The glossary could not be loaded (offline before the first visit?). ']), more, ' ', x);
    pop.setAttribute('role', 'note');
    pop.dataset.testid = 'glossary-pop';
    x.addEventListener('click', () => close(pop, true));
    pop.addEventListener('keydown', (k) => { if (k.key === 'Escape') close(pop, true); });
    t.setAttribute('aria-expanded', 'true');
    t.setAttribute('aria-controls', pop.id);
    t.after(pop);
    pop.focus();
  });
})();
