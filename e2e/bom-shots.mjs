// Screenshots of compare.html's bill of materials panel (issue 19): the DGX H100 SuperPOD and
// four GB200 NVL72 racks at 1400 px and 390 px, light and dark, to e2e/out/bom-*.png; checks that
// no row of the panel is wider than the phone's viewport outside its scrolling table.
//
//   node e2e/bom-shots.mjs      (DIST=path to a build with compare.html)

import { chromium } from 'playwright-core';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, CHROMIUM_ARGS, checker, assert, watch } from './static-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.env.DIST ?? join(here, '..', 'dist'));

async function main() {
  const server = await startServer({ root: dist, port: Number(process.env.PORT ?? 8102) });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  const { check, summary } = checker();
  const out = join(here, 'out');
  await mkdir(out, { recursive: true });
  try {
    for (const dark of [false, true]) {
      for (const width of [1400, 390]) {
        const ctx = await browser.newContext({ serviceWorkers: 'block', viewport: { width, height: 900 }, colorScheme: dark ? 'dark' : 'light' });
        const page = await ctx.newPage();
        const problems = watch(page, []);
        await page.goto(server.origin + '/compare.html', { waitUntil: 'load' });
        await page.waitForSelector('[data-preset=dgx-h100-superpod]', { timeout: 20000 });
        for (const [preset, name] of [['dgx-h100-superpod', 'superpod'], ['gb200-nvl72', 'nvl72']]) {
          await check(`${name} ${width} px ${dark ? 'dark' : 'light'}`, async () => {
            await page.click(`[data-preset=${preset}]`);
            await page.waitForFunction(() => document.querySelector('[data-testid=bom-power]')?.textContent.includes('kW'), null, { timeout: 10000 });
            const panel = page.locator('[data-testid=bom]');
            await panel.screenshot({ path: join(out, `bom-${name}-${width}-${dark ? 'dark' : 'light'}.png`) });
            const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
            assert(wide <= 1, `the page scrolls sideways by ${wide} px`);
            const text = await panel.innerText();
            assert(text.includes('count only'), 'count-only lines shown');
            assert(problems.length === 0, problems.join('\n'));
          });
        }
        await ctx.close();
      }
    }
  } finally {
    await browser.close();
    await server.stop();
  }
  process.exit(summary('e2e bom-shots') ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
