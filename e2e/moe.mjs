// The explorer's MoE view (issue 22, item 2), against a release build (dist/):
// - GB200 NVL72 SU (576 GPUs) with the DeepSeek-V3-like job at TP 1, PP 9, EP 64: the MoE
//   view says each EP group sits inside one scale-up domain (NVLink only), and its dispatch
//   and combine rows name NVLink as the bottleneck, with a time in µs;
// - the DGX B200 SuperPOD (1024 GPUs) with the same job at TP 1, PP 16, EP 64: the groups span domains and the rows name
//   the network;
// - a dense job (llama3-70b) shows no MoE view;
// - screenshots at 1400 px in both themes go to e2e/out/moe-*.png; no console error.
//
//   node e2e/moe.mjs            (DIST=path to test another build)

import { join } from 'node:path';
import { checker, assert, clickPreset } from './static-server.mjs';
import { setUp, newPage, OUT as out } from './run.mjs';

async function settled(page) {
  await page.waitForFunction(() => document.querySelector('[data-testid=training]')?.getAttribute('aria-busy') === 'false', null, { timeout: 60000 });
}

// EP is pinned after TP and PP (the mapping panel enables EP once TP is pinned).
async function setup(page, preset, workload, tp, pp, ep) {
  await clickPreset(page, preset);
  await page.selectOption('#workload-select', workload);
  await settled(page);
  for (const [sel, v] of [['#tp-select', tp], ['#pp-select', pp], ['#ep-select', ep]]) {
    await page.selectOption(sel, String(v));
    await settled(page);
  }
}

async function main() {
  const { base, browser, close } = await setUp();
  const { check, summary } = checker();
  const { page, problems } = await newPage(browser, { serviceWorkers: 'block' });
  try {
    await page.goto(base, { waitUntil: 'load' });
    await page.waitForSelector('[data-preset=gb200-nvl72-su]', { state: 'attached', timeout: 15000 });

    await check('GB200 NVL72 SuperPOD, DeepSeek-V3-like, EP 64: EP groups on NVLink only', async () => {
      await setup(page, 'gb200-nvl72-su', 'deepseek-v3-like', 1, 9, 64);
      await page.waitForSelector('[data-testid=moe-view]', { timeout: 30000 });
      assert((await page.getAttribute('[data-testid=moe-placement]', 'data-scale-up-only')) === 'true', 'scale-up only');
      const text = await page.textContent('[data-testid=moe-placement]');
      assert(text.includes('EP group of 64 GPUs') && text.includes('NVLink'), text);
      const rows = await page.locator('[data-testid=moe-table] tbody tr').allInnerTexts();
      assert(rows.length === 2 && rows.every((r) => r.includes('NVLink') && /\d+ µs/.test(r)), rows.join(' | '));
      await page.locator('[data-testid=moe-view]').screenshot({ path: join(out, 'moe-nvl72-light.png') });
    });

    await check('DGX B200 SuperPOD, same job, EP 64: the groups cross the network', async () => {
      await setup(page, 'dgx-b200-superpod', 'deepseek-v3-like', 1, 16, 64);
      await page.waitForSelector('[data-testid=moe-view]', { timeout: 30000 });
      assert((await page.getAttribute('[data-testid=moe-placement]', 'data-scale-up-only')) === 'false', 'crosses domains');
      const rows = await page.locator('[data-testid=moe-table] tbody tr').allInnerTexts();
      assert(rows.some((r) => r.includes('network')), rows.join(' | '));
    });

    await check('a dense job shows no MoE view', async () => {
      await page.selectOption('#workload-select', 'llama3-70b');
      await settled(page);
      assert((await page.locator('[data-testid=moe-view]').count()) === 0, 'no MoE view for a dense model');
    });

    await check('dark theme screenshot', async () => {
      await page.emulateMedia({ colorScheme: 'dark' });
      await setup(page, 'gb200-nvl72-su', 'deepseek-v3-like', 1, 9, 64);
      await page.waitForSelector('[data-testid=moe-view]', { timeout: 30000 });
      await page.locator('[data-testid=moe-view]').screenshot({ path: join(out, 'moe-nvl72-dark.png') });
    });

    await check('no console error', async () => {
      assert(problems.length === 0, problems.join('\n'));
    });
  } finally {
    await close();
  }
  process.exit(summary('e2e moe') ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
