// Developer tool: screenshots of every page at 1400 and 390 px in light and dark, and of the
// explorer on the GB200 NVL72 SU preset, into /tmp/shots/final; prints the pickers' values
// next to what the model ran (data-model) and the longest main-thread task of each load.
import { chromium } from 'playwright-core';
import { mkdir } from 'node:fs/promises';
import { serve, ARGS } from './run.mjs';
import { clickPreset } from './static-server.mjs';
const out = '/tmp/shots/final';
await mkdir(out, { recursive: true });
const [server, base] = await serve(process.env.DIST ?? 'dist');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS, headless: true });
const pages = ['index.html', 'compare.html', 'check.html', 'learn.html', 'serving.html', 'congestion.html'];
for (const scheme of ['light', 'dark']) {
  for (const w of [1400, 390]) {
    for (const p of [...pages, 'nvl72']) {
      const ctx = await browser.newContext({ viewport: { width: w, height: w > 500 ? 1000 : 844 }, colorScheme: scheme });
      const page = await ctx.newPage();
      await page.addInitScript(() => { window.__l = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__l.push(Math.round(e.duration)); }).observe({ type: 'longtask', buffered: true }); });
      await page.goto(base + (p === 'nvl72' ? '' : p), { waitUntil: 'load' });
      await page.waitForTimeout(2500);
      if (p === 'nvl72') {
        await clickPreset(page, 'gb200-nvl72-su');
        await page.waitForTimeout(2500);
        const pick = await page.evaluate(() => [...document.querySelectorAll('.controls select')].map((s) => `${s.id}=${s.value}`).join(' '));
        const model = await page.getAttribute('main.layout', 'data-model');
        if (scheme === 'light' && w === 1400) console.log('pickers:', pick, '\nmodel ran:', model);
      }
      const tasks = await page.evaluate(() => window.__l);
      await page.screenshot({ path: `${out}/${p.replace('.html', '')}-${w}-${scheme}.png` });
      if (p === 'nvl72') {
        const c = page.locator('[data-testid=chart]').first();
        await c.scrollIntoViewIfNeeded();
        await c.screenshot({ path: `${out}/nvl72-chart-${w}-${scheme}.png` });
      }
      console.log(`${p} ${w} ${scheme}: long tasks ${JSON.stringify(tasks)}`);
      await ctx.close();
    }
  }
}
await browser.close(); server.close(); process.exit(0);
