// Developer tool: which parts of the explorer change on each input of the node-slider drag
// (as bench.mjs drives it): DOM mutation records and nodes added per input, by the nearest
// ancestor's data-testid. Counts do not depend on how loaded the machine is, unlike timings.
//   node e2e/mutations-drag.mjs      (DIST=another build, WIDTH=390 for a phone)
import { chromium } from 'playwright-core';
import { resolve } from 'node:path';
import { serve, ARGS } from './run.mjs';

const dist = resolve(process.env.DIST ?? 'dist');
const [server, base] = await serve(dist);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS, headless: true });
try {
  const width = Number(process.env.WIDTH ?? 1400);
  const ctx = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(base, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid=chart] svg');
  await page.click('[data-preset=dgx-h100-superpod]');
  await page.waitForSelector('[data-testid=step-chart] svg', { timeout: 30000 });
  await page.waitForFunction(() => document.querySelector('[data-testid=training]')?.getAttribute('aria-busy') === 'false', null, { timeout: 30000 });
  await page.waitForTimeout(300);
  const out = await page.evaluate(async () => {
    const slider = document.querySelector('#nodes-slider');
    const frame = () => new Promise((ok) => requestAnimationFrame(() => ok()));
    const where = (n) => {
      for (let e = n.nodeType === 1 ? n : n.parentElement; e; e = e.parentElement) {
        if (e.dataset?.testid) return e.dataset.testid;
        if (e.id) return `#${e.id}`;
      }
      return '(root)';
    };
    const rec = new Map();
    let late = false;
    const add = (k, f, v) => {
      const r = rec.get(k) ?? { records: 0, added: 0, attrs: 0, text: 0 };
      r[f] += v;
      rec.set(k, r);
    };
    const obs = new MutationObserver((list) => {
      for (const m of list) {
        const k = (late ? 'LATE ' : '') + where(m.target);
        add(k, 'records', 1);
        if (m.type === 'childList') {
                    for (const a of m.addedNodes) {
            const n = 1 + (a.querySelectorAll ? a.querySelectorAll('*').length : 0);
            const name = a.nodeType === 1 ? (a.dataset?.testid ?? a.id ?? '') || `<${a.localName}.${a.className?.baseVal ?? a.className}>` : '#text';
            add(`${k} > ${name}`, 'added', n);
          }
        } else if (m.type === 'attributes') add(k, 'attrs', 1);
        else add(k, 'text', 1);
      }
    });
    obs.observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
    const positions = [6, 7, 8, 7];
    const N = 40;
    for (let i = 0; i < N; i++) {
      await frame();
      await frame();
      late = false;
      requestAnimationFrame(() => { late = true; });
      slider.value = String(positions[i % positions.length]);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    }
    await frame();
    await frame();
    obs.disconnect();
    return [...rec].map(([k, r]) => [k, r.records / N, r.added / N, r.attrs / N, r.text / N]);
  });
  out.sort((a, b) => b[2] - a[2] || b[1] - a[1]);
  console.log('per input: records  nodes-added  attrs  text   where');
  for (const [k, r, a, at, t] of out) console.log(`${r.toFixed(1).padStart(8)} ${a.toFixed(1).padStart(10)} ${at.toFixed(1).padStart(6)} ${t.toFixed(1).padStart(6)}   ${k}`);
} finally {
  await browser.close();
  server.close();
}
