// Bill of materials and right-sizer panels (issue 12) on compare.html, against a release build (dist/):
// - the DGX H100 SuperPOD preset (128 nodes, 8x NDR) lists 32 leaf + 16 spine switches, as
//   NVIDIA's SuperPOD reference architecture does, 128 DGX H100 at 10,200 W, and its CSV;
// - the right-sizer runs on request for 1024 GPUs in slices: no main-thread task over 50 ms,
//   done within a few seconds, a Pareto chart with the pick ringed; a cluster change retires
//   the answer;
// - no console error on the way.
//
//   node e2e/bom.mjs            (DIST=path to test another build)

import { chromium } from 'playwright-core';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, CHROMIUM_ARGS, checker, assert, watch } from './static-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.env.DIST ?? join(here, '..', 'dist'));

async function main() {
  assert((await stat(join(dist, 'index.html')).catch(() => null)) !== null, `no build in ${dist}`);
  const server = await startServer({ root: dist });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  const { check, summary } = checker();
  const ctx = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  const page = await ctx.newPage();
  const problems = watch(page, []);
  try {
    await page.goto(server.origin + '/compare.html', { waitUntil: 'load' });
    await page.waitForSelector('[data-preset=dgx-h100-superpod]', { timeout: 15000 });
    await page.click('[data-preset=dgx-h100-superpod]');

    await check('SuperPOD preset: 32 leaf + 16 spine switches, DGX H100 at 10.2 kW, CSV download', async () => {
      await page.waitForFunction(() => document.querySelector('[data-testid=bom-counts]')?.textContent.includes('32 leaf + 16 spine'), null, { timeout: 10000 });
      const counts = await page.textContent('[data-testid=bom-counts]');
      assert(counts.startsWith('48 switches') && counts.includes('1024 NICs'), counts);
      const row = await page.locator('[data-testid=bom] tr', { hasText: 'DGX H100' }).innerText();
      assert(/128\s+10200\s+1306/.test(row), `DGX row: ${row}`);
      const [d] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), page.click('[data-testid=bom-csv]')]);
      const csv = (await readFile(await d.path())).toString().split('\r\n');
      assert(d.suggestedFilename() === 'fabricscope-bom.csv' && csv[0].startsWith('group,item,name,count,unit_power_w'), csv[0]);
      assert(csv.some((l) => l.startsWith('leaf,qm9700,') && l.includes(',32,')), 'CSV has the 32 leaf switches');
    });

    await check('right-sizer: 1024 GPUs in slices (no task over 50 ms), Pareto chart with the pick', async () => {
      await page.evaluate(() => {
        window.__long = [];
        new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__long.push(e.duration))).observe({ type: 'longtask' });
      });
      const t0 = Date.now();
      await page.click('[data-testid=rightsize-run]');
      await page.waitForSelector('[data-testid=rightsize-pick]', { timeout: 30000 });
      const ms = Date.now() - t0;
      const long = await page.evaluate(() => window.__long);
      assert(long.every((d) => d <= 50), `long tasks: ${long}`);
      const svg = await page.locator('[data-testid=rightsize] svg').innerHTML();
      assert((svg.match(/<circle/g) ?? []).length > 10, 'one point per ranked option');
      assert((await page.textContent('[data-testid=rightsize] svg')).includes('pick: '), 'the pick is labelled');
      console.log(`     right-sized in ${ms} ms`);
    });

    await check('a cluster change retires the answer', async () => {
      await page.click('[data-preset=h100-roce]');
      await page.waitForFunction(() => !document.querySelector('[data-testid=rightsize-pick]'), null, { timeout: 10000 });
    });

    await check('no console error', async () => assert(problems.length === 0, problems.join('\n')));
  } finally {
    await browser.close();
    await server.stop();
  }
  process.exit(summary('e2e bom') ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
