// temp: screenshots of learn and compare pages (not committed)
import { chromium } from 'playwright-core';
import { startServer, CHROMIUM_ARGS } from './static-server.mjs';
const [dist, tag] = process.argv.slice(2);
const server = await startServer({ root: dist });
const base = server.origin + '/';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
const FOUR = 'v1.eyJuIjo0fQ';
for (const scheme of ['light', 'dark']) {
  const c = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: scheme });
  const p = await c.newPage();
  p.on('console', (m) => m.type() === 'error' && console.log('console', m.text()));
  await p.goto(`${base}learn.html#s=${FOUR}`, { waitUntil: 'load' });
  await p.waitForSelector('#t-svg svg', { timeout: 15000 });
  await p.evaluate(() => { const s = document.querySelector('#t-scrub'); s.value = 327; s.dispatchEvent(new Event('input')); });
  await p.click('#t-algos > summary');
  await p.waitForSelector('#t-atable .t-auto', { timeout: 10000 });
  await p.click('#t-lessons > summary');
  await p.waitForSelector('[data-lesson=nvlink-vs-ib]', { timeout: 10000 });
  await p.click('[data-lesson=nvlink-vs-ib]');
  await p.waitForSelector('#t-reveal');
  await p.click('#t-reveal');
  await p.waitForTimeout(300);
  await p.screenshot({ path: `/tmp/ui2/${tag}-learn-${scheme}.png`, fullPage: true });
  await p.goto(`${base}compare.html#s=${FOUR}`, { waitUntil: 'load' });
  await p.waitForSelector('[data-testid=pin]', { timeout: 15000 });
  await p.click('[data-testid=pin]');
  await p.waitForTimeout(500);
  await p.screenshot({ path: `/tmp/ui2/${tag}-compare-${scheme}.png`, fullPage: true });
  await c.close();
}
await browser.close();
await server.stop();
