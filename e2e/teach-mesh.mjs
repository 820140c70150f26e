// Learn on an AMD xGMI mesh (issue 23): the Platform picker plays one 8x MI300X node; the frame
// draws the GPUs on a circle with the 28 point-to-point links, the ring's links lit; NVLS cannot
// be picked and says why; the note says a ring uses 2 of 7 links per GPU and why RCCL runs
// several rings; the ring's counter ends at 2(n-1)/n x S. Screenshots at 1400x900, light and
// dark (e2e/out/teach-mesh-*.png). Called by e2e/teach.mjs; runs alone against a build holding
// learn.html:   DIST=target/learn-dist node e2e/teach-mesh.mjs   (PORT=8116 to pick the port)

import { chromium } from 'playwright-core';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, CHROMIUM_ARGS, checker, assert } from './static-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'out');

/** The mesh checks on `browser`, Learn at `url` (no design in the link needed). */
export async function meshChecks(browser, url, check) {
  for (const scheme of ['light', 'dark']) {
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: scheme });
    const page = await ctx.newPage();
    try {
      await check(`xGMI mesh (${scheme}): 8 GPUs on a circle, 28 links, the ring's lit; no NVLS; the note; the ring's formula`, async () => {
        await page.goto(url, { waitUntil: 'load' });
        await page.waitForSelector('#t-svg svg', { timeout: 15000 });
        await page.selectOption('#t-platform', 'xgmi');
        await page.waitForSelector('#t-mesh', { timeout: 5000 });
        const note = await page.textContent('#t-mesh');
        assert(/28 links/.test(note) && /2 of each GPU's links/.test(note) && /no NVLS/.test(note), note);
        assert(await page.evaluate(() => document.querySelector('#t-algo option[value=nvls]').disabled), 'NVLS cannot be picked on a mesh');
        const svg = await page.evaluate(() => document.querySelector('#t-svg svg').outerHTML);
        assert((svg.match(/<circle/g) ?? []).length === 8, 'eight GPUs');
        assert(svg.includes('xGMI mesh: no switch'), 'the mesh is named');
        // The 20 links a ring does not use are drawn faint: 28 links in all.
        const faint = (svg.match(/stroke-width="0.8" d="([^"]*)"/) ?? ['', ''])[1];
        assert((faint.match(/M/g) ?? []).length === 20, `faint links: ${faint}`);
        const c = await page.evaluate(() => ({ ...document.querySelector('#t-count').dataset }));
        assert(c.n === '8' && c.d === '1', JSON.stringify(c));
        // A moment into the first step, for the picture: chunks on their links.
        await page.focus('#t-play');
        await page.keyboard.press('Home');
        await page.selectOption('#t-speed', '0.25');
        await page.click('#t-play');
        await page.waitForTimeout(250);
        await page.click('#t-play');
        // The controls, the note and the whole mesh in one view.
        await page.evaluate(() => window.scrollTo(0, document.querySelector('#t-platform').getBoundingClientRect().top + window.scrollY - 90));
        await page.screenshot({ path: join(out, `teach-mesh-${scheme}.png`) });
        await page.selectOption('#t-speed', '4');
        await page.click('#t-play');
        await page.waitForFunction(() => document.querySelector('#t-count')?.dataset.done === 'true', null, { timeout: 30000 });
        const end = await page.evaluate(() => ({ ...document.querySelector('#t-count').dataset }));
        const want = ((2 * 7) / 8) * +end.s;
        assert(Math.abs(+end.measured - want) <= 1e-6 * want, `counter ${end.measured} vs 2(n-1)/n x S = ${want}`);
      });
    } finally {
      await ctx.close();
    }
  }
}

async function main() {
  await mkdir(out, { recursive: true });
  const root = resolve(process.env.DIST ?? join(here, '..', 'dist'));
  const server = await startServer({ root, port: +(process.env.PORT ?? 0) });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  const { check, summary } = checker();
  try {
    await meshChecks(browser, `${server.origin}/learn.html`, check);
  } finally {
    await browser.close();
    await server.stop().catch(() => {});
  }
  process.exit(summary('e2e teach-mesh') ? 0 : 1);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
