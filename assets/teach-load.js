// Loads the "Learn" section's code (teach.js: animations, lessons, glossary) only when one of
// its parts is opened, a glossary term is followed, or the link carries a lesson: the first
// paint carries none of it.
(() => {
  let mod;
  const load = () => (mod ||= import(new URL('teach.js', document.baseURI).href));
  addEventListener('toggle', (e) => {
    const d = e.target;
    if (d.open && d.parentElement?.id === 'teach-parts') load().then((m) => m.open(d.id));
  }, true);
  addEventListener('click', (e) => {
    const t = e.target.closest?.('[data-g]');
    if (t) load().then((m) => m.term(t.dataset.g));
  });
  if (/[?&]lesson=/.test(location.search)) {
    addEventListener('TrunkApplicationStarted', () => { const d = document.getElementById('t-lessons'); if (d) d.open = true; });
  }
})();
