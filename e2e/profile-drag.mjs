// Developer tool: CPU profile of the explorer's node-slider drag (as bench.mjs drives it),
// self time per function. Point DIST at a build whose wasm keeps its name section.
//   DIST=/tmp/prof node e2e/profile-drag.mjs
import { chromium } from 'playwright-core';
import { resolve } from 'node:path';
import { serve, ARGS } from './run.mjs';

const dist = resolve(process.env.DIST ?? 'dist');
const [server, base] = await serve(dist);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS, headless: true });
try {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(base, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid=chart] svg');
  await page.click('[data-preset=dgx-h100-superpod]');
  await page.waitForSelector('[data-testid=step-chart] svg', { timeout: 30000 });
  await page.waitForFunction(() => document.querySelector('[data-testid=training]')?.getAttribute('aria-busy') === 'false', null, { timeout: 30000 });
  await page.waitForTimeout(300);
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  await page.evaluate(async () => {
    const slider = document.querySelector('#nodes-slider');
    const frame = () => new Promise((ok) => requestAnimationFrame(() => ok()));
    const positions = [6, 7, 8, 7];
    for (let i = 0; i < 120; i++) {
      await frame();
      await frame();
      slider.value = String(positions[i % positions.length]);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    }
  });
  const { profile } = await cdp.send('Profiler.stop');
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = profile.timeDeltas;
  profile.samples.forEach((id, i) => {
    const n = byId.get(id);
    const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}`;
    self.set(k, (self.get(k) ?? 0) + (dt[i] ?? 0));
  });
  // inclusive time per function: walk parents
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const incl = new Map();
  profile.samples.forEach((id, i) => {
    const seen = new Set();
    for (let x = id; x !== undefined; x = parent.get(x)) {
      const f = byId.get(x).callFrame.functionName || '(anon)';
      if (seen.has(f)) continue;
      seen.add(f);
      incl.set(f, (incl.get(f) ?? 0) + (dt[i] ?? 0));
    }
  });
  const top = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([f, us]) => `${(us / 1000 / 120).toFixed(2).padStart(7)} ms/input  ${f.slice(0, 150)}`).join('\n');
  console.log('SELF\n' + top(self, 40));
  console.log('INCLUSIVE\n' + top(incl, 70));
} finally {
  await browser.close();
  server.close();
}
