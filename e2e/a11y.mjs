// Accessibility on all five pages (issue 20), against a release build (dist/): in both themes at
// 1400 px and on a 390 px phone, every piece of visible text (HTML text and SVG <text>) has WCAG AA
// contrast against its effective background (4.5:1, 3:1 for large text: 24 px, or 18.66 px bold),
// with colours composited through alpha and opacity; every page but the embed has at least three
// real headings (the page's and its main sections'); no button or link is named only by a file
// format ("SVG", "PNG") or has no name; every page shows the same navigation in the same place.
// Full-page screenshots of each (every disclosure open) go to e2e/out/a11y-<page>-<width>-<theme>.png.
//
//   node e2e/a11y.mjs            (DIST=path to serve another build)

import { join } from 'node:path';
import { checker, assert, watch } from './static-server.mjs';
import { setUp, OUT as out } from './run.mjs';
const { check, summary } = checker();

/** Two nodes of DGX H100 (the link format of src/plumbing/url.rs, as the other suites use). */
const PAGES = [
  { name: 'explorer', path: '', ready: '[data-testid=chart] svg', headings: 3 },
  { name: 'compare', path: 'compare.html', ready: '[data-testid=compare]', headings: 3 },
  { name: 'check', path: 'check.html', ready: '[data-testid=check-log]', headings: 3 },
  { name: 'learn', path: 'learn.html', ready: '#t-svg svg', headings: 3 },
  { name: 'embed', path: 'embed.html?embed=busbw', ready: '[data-testid=embed-chart] svg', headings: 0 },
  { name: 'serving', path: 'serving.html', ready: '[data-testid=serving-chart] svg', headings: 3 },
  { name: 'congestion', path: 'congestion.html', ready: '[data-testid=congestion]', headings: 3 },
];

/** Runs in the page: every text below AA, with what it was measured against. */
function lowContrast() {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const over = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a),
    g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a),
    a: 1,
  });
  const lum = (c) => {
    const f = (v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const ratio = (a, b) => {
    const x = lum(a);
    const y = lum(b);
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  };
  // The page's own background colour, and any gradient stops on the body (the masthead's glow).
  const pageBgs = () => {
    const cs = getComputedStyle(document.body);
    const base = parse(cs.backgroundColor) ?? { r: 255, g: 255, b: 255, a: 1 };
    const html = parse(getComputedStyle(document.documentElement).backgroundColor);
    const b0 = base.a < 1 ? over(base, html && html.a > 0 ? html : { r: 255, g: 255, b: 255, a: 1 }) : base;
    const stops = [...cs.backgroundImage.matchAll(/rgba?\([^)]+\)/g)].map((m) => parse(m[0])).filter(Boolean).map((c) => over(c, b0));
    return [b0, ...stops];
  };
  // Layers of background colour from the element up to (not including) body.
  const layers = (el) => {
    const out = [];
    for (let e = el; e && e !== document.body && e !== document.documentElement; e = e.parentElement) {
      if (e instanceof SVGElement && !(e instanceof SVGSVGElement)) continue;
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) {
        out.push(c);
        if (c.a >= 1) break;
      }
    }
    return out;
  };
  const opacity = (el) => {
    let o = 1;
    for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
    return o;
  };
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return false;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || cs.display === 'none') return false;
    if (el.closest('[aria-hidden=true], [hidden], .visually-hidden, :disabled, [aria-disabled=true], noscript')) return false;
    if (el.closest('details:not([open])') && !el.closest('summary')) return false;
    return el.checkVisibility ? el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }) : true;
  };
  const base = pageBgs();
  const bad = [];
  const seen = new Set();
  const els = [...document.querySelectorAll('body *')].filter((el) => {
    if (el.tagName === 'SCRIPT' || el.tagName === 'STYLE' || el.tagName === 'TITLE') return false;
    if (el instanceof SVGElement) return el.tagName === 'text' || el.tagName === 'tspan';
    return [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()) || ((el.tagName === 'INPUT' && el.type !== 'range' && el.type !== 'checkbox' && el.type !== 'radio' && el.type !== 'file' && el.value) || (el.tagName === 'TEXTAREA' && el.value));
  });
  for (const el of els) {
    if (!visible(el)) continue;
    const cs = getComputedStyle(el);
    const svg = el instanceof SVGElement;
    if (svg && el.tagName === 'tspan' && !el.textContent.trim()) continue;
    let fg = parse(svg ? cs.fill : cs.color);
    if (!fg) continue;
    fg = { ...fg, a: fg.a * opacity(el) * (svg ? Number(cs.fillOpacity || 1) : 1) };
    const lay = layers(el).reverse();
    let bgs = (lay.length && lay[0].a >= 1 ? [lay[0]] : base).map((b) => lay.reduce((acc, c) => (c.a >= 1 ? c : over(c, acc)), b));
    // SVG text drawn over a shape (a heatmap cell, a bar): the shapes of its <svg> under the
    // text's centre, in drawing order, composited over the page behind the chart.
    if (svg) {
      const r = el.getBoundingClientRect();
      const [x, y] = [r.left + r.width / 2, r.top + r.height / 2];
      const root = el.ownerSVGElement;
      const shapes = [...root.querySelectorAll('rect, circle, ellipse')].filter((sh) => {
        if (sh.compareDocumentPosition(el) !== Node.DOCUMENT_POSITION_FOLLOWING) return false;
        const b = sh.getBoundingClientRect();
        return x >= b.left && x <= b.right && y >= b.top && y <= b.bottom;
      });
      for (const sh of shapes) {
        const sc = getComputedStyle(sh);
        const f = parse(sc.fill);
        if (!f) continue;
        const a = f.a * Number(sc.fillOpacity || 1) * Number(sc.opacity || 1);
        bgs = bgs.map((b) => over({ ...f, a }, b));
      }
    }
    const size = parseFloat(cs.fontSize);
    const bold = Number(cs.fontWeight) >= 700 || cs.fontWeight === 'bold';
    const large = size >= 24 || (bold && size >= 18.66);
    const need = large ? 3 : 4.5;
    const worst = Math.min(...bgs.map((b) => ratio(over(fg, b), b)));
    if (worst + 1e-6 < need) {
      const text = (el.value || el.textContent).trim().replace(/\s+/g, ' ').slice(0, 60);
      const key = `${cs.color}|${cs.fill}|${text}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const path = [];
      for (let e = el; e && e !== document.body && path.length < 4; e = e.parentElement) path.unshift(e.tagName.toLowerCase() + (e.classList.length ? '.' + [...e.classList].join('.') : '') + (e.dataset?.testid ? `[${e.dataset.testid}]` : ''));
      bad.push(`${worst.toFixed(2)}:1 < ${need} "${text}" (${svg ? 'fill ' + cs.fill : cs.color}) at ${path.join(' > ')}`);
    }
  }
  return bad;
}

/** Runs in the page: headings, control names and the navigation. */
function structure() {
  const visibleName = (el) => {
    const by = el.getAttribute('aria-labelledby');
    if (by) return by.split(/\s+/).map((id) => document.getElementById(id)?.textContent ?? '').join(' ').trim();
    return (el.getAttribute('aria-label') ?? el.textContent ?? el.value ?? el.getAttribute('title') ?? '').trim().replace(/\s+/g, ' ');
  };
  const headings = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role=heading]')].map((h) => h.textContent.trim().replace(/\s+/g, ' ')).filter(Boolean);
  const controls = [...document.querySelectorAll('button, a[href], [role=button], summary')].map((el) => ({ tag: el.tagName.toLowerCase(), name: visibleName(el), testid: el.dataset.testid ?? '' }));
  const nav = document.querySelector('header.masthead nav.pages');
  const navBox = nav?.getBoundingClientRect();
  const h1 = document.querySelector('header.masthead h1')?.getBoundingClientRect();
  return {
    headings,
    formatOnly: controls.filter((c) => /^(svg|png|csv|json|pdf|txt)$/i.test(c.name)),
    nameless: controls.filter((c) => !c.name),
    nav: nav ? [...nav.querySelectorAll('a')].map((a) => a.textContent.trim()) : null,
    navRight: navBox && h1 ? navBox.left > h1.right : null,
    navTopAtTitle: navBox && h1 ? navBox.top < h1.bottom : null,
  };
}

async function main() {
  const { base, browser, close } = await setUp({ server: { port: Number(process.env.PORT ?? 0) } });
  const navs = {};
  try {
    for (const [w, h, label] of [[1400, 900, 'desktop'], [390, 844, 'phone']]) {
      for (const scheme of ['light', 'dark']) {
        for (const p of PAGES) {
          await check(`${p.name} ${label} ${scheme}: all text at AA contrast${p.headings ? ', three headings' : ''}, no control named by a format, the shared navigation`, async () => {
            const ctx = await browser.newContext({ viewport: { width: w, height: h }, colorScheme: scheme, reducedMotion: 'reduce' });
            const page = await ctx.newPage();
            const problems = watch(page, []);
            try {
              await page.goto(`${base}${p.path}`, { waitUntil: 'load' });
              await page.waitForSelector(p.ready, { timeout: 20000 });
              await page.waitForTimeout(600);
              // Open every disclosure so the text inside is measured too.
              await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
              await page.waitForTimeout(400);
              await page.screenshot({ path: join(out, `a11y-${p.name}-${w}-${scheme}.png`), fullPage: true });
              const bad = await page.evaluate(lowContrast);
              const s = await page.evaluate(structure);
              assert(bad.length === 0, `${bad.length} text elements below AA:\n       ${bad.slice(0, 25).join('\n       ')}`);
              if (p.headings) assert(s.headings.length >= p.headings, `only ${s.headings.length} headings: ${s.headings.join(' | ')}`);
              assert(s.formatOnly.length === 0, `controls named only by a format: ${JSON.stringify(s.formatOnly)}`);
              assert(s.nameless.length === 0, `controls with no name: ${JSON.stringify(s.nameless)}`);
              if (p.name !== 'embed') {
                navs[`${label}`] ??= s.nav.join('|');
                assert(s.nav.join('|') === navs[label], `the same navigation on every page: ${s.nav} vs ${navs[label]}`);
                if (label === 'desktop') assert(s.navRight && s.navTopAtTitle, `the navigation sits right of the title, on its line (right ${s.navRight}, level ${s.navTopAtTitle})`);
              }
              assert(problems.length === 0, problems.join('\n'));
            } finally {
              await ctx.close();
            }
          });
        }
      }
    }
  } finally {
    await close();
  }
  if (!summary('a11y')) process.exit(1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
