// Developer tool: the explorer's training panel for DeepSeek-V3 on the GB200 NVL72 SU preset,
// with the release left open and with NeMo 25.07 picked; screenshots into /tmp/shots/release
// and the step time, band and interval words printed for each.
import { chromium } from 'playwright-core';
import { mkdir } from 'node:fs/promises';
import { serve, ARGS } from './run.mjs';
import { clickPreset } from './static-server.mjs';
const out = '/tmp/shots/release';
await mkdir(out, { recursive: true });
const [server, base] = await serve(process.env.DIST ?? 'dist');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS, headless: true });
for (const scheme of ['light', 'dark']) {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 }, colorScheme: scheme });
  const page = await ctx.newPage();
  await page.goto(base, { waitUntil: 'load' });
  await page.waitForTimeout(2000);
  await clickPreset(page, 'gb200-nvl72-su');
  await page.waitForTimeout(1500);
  await page.selectOption('#workload-select', 'deepseek-v3-like');
  for (const fw of ['megatron-core', 'nemo-25.09', 'nemo-25.07']) {
    await page.selectOption('#framework-select', fw);
    await page.waitForTimeout(6000);
    const step = await page.getAttribute('[data-testid=step-time]', 'data-value');
    const band = await page.textContent('[data-testid=training-band]');
    const assumed = await page.textContent('[data-testid=training-assumptions]');
    if (scheme === 'light') console.log(`${fw}: step ${step} s | ${band} | ${assumed.slice(0, 80)}`);
    const panel = page.locator('[data-testid=training-band]').locator('xpath=ancestor::section[1]');
    await panel.scrollIntoViewIfNeeded();
    await panel.screenshot({ path: `${out}/training-${fw}-${scheme}.png` });
  }
  await ctx.close();
}
await browser.close(); server.close(); process.exit(0);
