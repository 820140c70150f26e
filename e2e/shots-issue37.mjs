// Developer tool (issue 37's closing note): screenshots of what a new user hits, retried, into
// SHOTS (default /tmp/shots37): the explorer's serving and congestion sections scrolled into
// view (default design, the 512-GPU RoCE design at 3:1 and 576 GB200), compare's bill of
// materials and right-sizer priced with examples/price-book.example.json, embeds at 400 px,
// serving.html (and after a refused model change), congestion.html, Learn's Algorithms
// sentence and the serving lesson's TPOT choice. Prints the texts the note quotes.
//
//   node e2e/shots-issue37.mjs      (DIST=path to a build, SHOTS=output folder)
import { chromium } from 'playwright-core';
import { mkdir } from 'node:fs/promises';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, CHROMIUM_ARGS } from './static-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.env.DIST ?? join(here, '..', 'dist'));
const out = process.env.SHOTS ?? '/tmp/shots37';
// `fabricscope link` of {"cluster": ..., "training": {"workload": "llama3-70b"}}.
const LINKS = {
  default: '',
  roce: 'v1.eyJpIjoicm9jZS00MDAiLCJuIjo2NCwib3YiOjMuMCwicm8iOmZhbHNlLCJ3IjoibGxhbWEzLTcwYiJ9',
  gb200: 'v1.eyJnIjoiZ2IyMDAiLCJrIjo0LCJuIjoxNDQsInAiOjQsInUiOiJudmw3MiIsInciOiJsbGFtYTMtNzBiIn0',
};
const TWO_NODES = 'v1.eyJuIjoyfQ';

const say = (k, v) => console.log(`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);

async function main() {
  await mkdir(out, { recursive: true });
  const server = await startServer({ root: dist });
  const base = server.origin + '/';
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  const fresh = async (viewport = { width: 1400, height: 900 }) => {
    const ctx = await browser.newContext({ serviceWorkers: 'block', viewport });
    return [ctx, await ctx.newPage()];
  };
  try {
    // The explorer's framed sections.
    for (const [name, link] of Object.entries(LINKS)) {
      const [ctx, page] = await fresh();
      await page.goto(base + (link ? `#s=${link}` : ''), { waitUntil: 'load' });
      await page.waitForSelector('[data-testid=chart] svg', { timeout: 20000 });
      await page.waitForSelector('[data-testid=step-time]', { timeout: 60000 });
      say(`${name} explorer step`, await page.textContent('[data-testid=step-time]'));
      await page.locator('[data-testid=serving-section]').scrollIntoViewIfNeeded();
      await page.frameLocator('iframe[data-testid=serving-frame]').locator('[data-testid=serving-tpot]').waitFor({ timeout: 30000 });
      const sf = await (await page.$('iframe[data-testid=serving-frame]')).contentFrame();
      await page.waitForTimeout(800);
      say(`${name} serving frame cluster line`, await sf.textContent('[data-testid=cluster-line]'));
      say(`${name} serving frame shown`, await sf.textContent('[data-testid=serving-shown]'));
      await page.locator('[data-testid=serving-section]').evaluate((e) => e.scrollIntoView({ block: 'start' }));
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(out, `explorer-${name}-serving.png`) });
      await page.locator('[data-testid=congestion-section]').evaluate((e) => e.scrollIntoView({ block: 'start' }));
      let cf = null;
      for (let i = 0; i < 200 && !cf; i++) {
        cf = page.frames().find((x) => x.url().includes('congestion.html'));
        if (!cf) await page.waitForTimeout(100);
      }
      await cf.waitForFunction(() => {
        const p = document.querySelector('[data-testid=congestion]');
        return p && p.dataset.current === 'true' && p.dataset.running === 'false' && document.querySelector('[data-testid=congestion-numbers]');
      }, null, { timeout: 90000 });
      await cf.waitForSelector('[data-testid=step-over-seeds][data-current=true] [data-testid=step-over-seeds-numbers]', { timeout: 90000 }).catch(() => {});
      await page.waitForTimeout(800);
      say(`${name} congestion frame cluster line`, await cf.textContent('[data-testid=cluster-line]'));
      const steps = await cf.$('[data-testid=step-over-seeds]');
      if (steps) say(`${name} congestion step`, await steps.innerText());
      await page.locator('[data-testid=congestion-section]').evaluate((e) => e.scrollIntoView({ block: 'start' }));
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(out, `explorer-${name}-congestion.png`) });
      await page.locator('[data-testid=congestion-section]').screenshot({ path: join(out, `explorer-${name}-congestion-section.png`) });
      await page.locator('[data-testid=serving-section]').screenshot({ path: join(out, `explorer-${name}-serving-section.png`) });
      await ctx.close();
    }

    // compare.html: the bill of materials and the right-sizer, priced by the example book.
    {
      const [ctx, page] = await fresh();
      await page.goto(base + 'compare.html', { waitUntil: 'load' });
      await page.waitForSelector('[data-preset=dgx-h100-superpod]', { timeout: 20000 });
      await page.click('[data-preset=dgx-h100-superpod]');
      await page.setInputFiles('[data-testid=price-import]', join(here, '..', 'examples', 'price-book.example.json'));
      await page.waitForFunction(() => document.querySelector('[data-testid=bom-power]')?.textContent.includes(' per GPU'), null, { timeout: 15000 });
      say('bom totals', await page.textContent('[data-testid=bom-power]'));
      await page.locator('[data-testid=bom]').screenshot({ path: join(out, 'compare-bom.png') });
      await page.click('[data-testid=rightsize-run]');
      await page.waitForSelector('[data-testid=rightsize-pick]', { timeout: 120000 });
      await page.waitForTimeout(500);
      say('rightsize', (await page.locator('[data-testid=rightsize]').innerText()).slice(0, 1500));
      await page.locator('[data-testid=rightsize]').screenshot({ path: join(out, 'compare-rightsize.png') });
      const delta = await page.$('[data-testid=delta]');
      if (delta) {
        say('delta', (await delta.innerText()).slice(0, 1500));
        await delta.screenshot({ path: join(out, 'compare-delta.png') });
      }
      await ctx.close();
    }

    // Embeds at 400 x 225 (and the step embed's caption with its band).
    for (const id of ['busbw', 'step', 'hierarchy', 'mfu']) {
      const [ctx, page] = await fresh({ width: 400, height: 225 });
      await page.goto(`${base}embed.html?embed=${id}#s=${TWO_NODES}`, { waitUntil: 'load' });
      await page.waitForSelector('[data-testid=embed-chart] svg', { timeout: 20000 });
      await page.waitForTimeout(500);
      say(`embed ${id} caption`, await page.textContent('.embed-caption'));
      await page.screenshot({ path: join(out, `embed-${id}-400.png`) });
      await ctx.close();
    }

    // serving.html on its own, then a model the design cannot host.
    for (const [name, link] of [['default', ''], ['gb200', LINKS.gb200]]) {
      const [ctx, page] = await fresh();
      await page.goto(base + 'serving.html' + (link ? `#s=${link}` : ''), { waitUntil: 'load' });
      await page.waitForSelector('[data-testid=serving-tpot]', { timeout: 30000 });
      await page.waitForTimeout(800);
      say(`serving.html ${name} cluster line`, await page.textContent('[data-testid=cluster-line]'));
      say(`serving.html ${name} shown`, await page.textContent('[data-testid=serving-shown]'));
      const mem = await page.$('[data-testid=serving-memory]');
      if (mem) say(`serving.html ${name} memory`, await mem.innerText());
      await page.screenshot({ path: join(out, `serving-${name}.png`), fullPage: true });
      if (name === 'default') {
        await page.selectOption('#serving-model', 'deepseek-v3');
        await page.waitForSelector('[data-testid=serving-error]', { timeout: 10000 });
        await page.waitForTimeout(500);
        say('serving.html refused', await page.textContent('[data-testid=serving-error]'));
        say('serving.html refused shown', await page.textContent('[data-testid=serving-shown]'));
        await page.screenshot({ path: join(out, 'serving-refused.png') });
      }
      await ctx.close();
    }

    // congestion.html on its own.
    for (const [name, link] of [['default', ''], ['gb200', LINKS.gb200]]) {
      const [ctx, page] = await fresh();
      await page.goto(base + 'congestion.html' + (link ? `#s=${link}` : ''), { waitUntil: 'load' });
      await page.waitForFunction(() => {
        const p = document.querySelector('[data-testid=congestion]');
        return p && p.dataset.current === 'true' && p.dataset.running === 'false' && document.querySelector('[data-testid=congestion-numbers]');
      }, null, { timeout: 90000 });
      await page.waitForTimeout(500);
      say(`congestion.html ${name} cluster line`, await page.textContent('[data-testid=cluster-line]'));
      await page.screenshot({ path: join(out, `congestion-${name}.png`) });
      await ctx.close();
    }

    // Learn's Algorithms part: the sentence and the table under it, at two sizes.
    {
      const [ctx, page] = await fresh();
      await page.goto(base + 'learn.html', { waitUntil: 'load' });
      await page.click('#t-algos > summary');
      await page.waitForSelector('#t-atable .t-auto', { timeout: 20000 });
      for (const exp of [20, 30]) {
        await page.evaluate((e) => { const s = document.querySelector('#t-asize'); s.value = e; s.dispatchEvent(new Event('input')); }, exp);
        await page.waitForTimeout(300);
        say(`learn reason 2^${exp}`, await page.textContent('#t-areason'));
        say(`learn table 2^${exp}`, await page.locator('#t-atable').innerText());
        await page.locator('#t-areason').evaluate((e) => e.scrollIntoView({ block: 'start' }));
        await page.screenshot({ path: join(out, `learn-algorithms-${exp}.png`) });
      }
      await ctx.close();
    }

    // Learn's serving lesson, step 3: the two layouts' TPOT with their intervals, and the explanation.
    {
      const [ctx, page] = await fresh({ width: 1400, height: 1000 });
      await page.goto(base + 'learn.html', { waitUntil: 'load' });
      await page.click('#t-lessons > summary');
      await page.waitForSelector('[data-lesson=serving-tp-kv]', { timeout: 20000 });
      await page.click('[data-lesson=serving-tp-kv]');
      for (let step = 0; step < 2; step++) {
        await page.waitForSelector('#t-reveal', { timeout: 20000 });
        await page.click('#t-reveal');
        await page.click('#t-next');
        await page.waitForTimeout(300);
      }
      await page.waitForSelector('input[name=t-choice]', { timeout: 20000 });
      await (await page.$$('input[name=t-choice]'))[1].check();
      await page.click('#t-reveal');
      await page.waitForSelector('.t-answer', { timeout: 10000 });
      say('serving lesson step 3', await page.locator('.t-answer').evaluate((e) => e.parentElement.innerText));
      await page.locator('.t-answer').evaluate((e) => e.scrollIntoView({ block: 'center' }));
      await page.screenshot({ path: join(out, 'learn-serving-lesson-step3.png') });
      await ctx.close();
    }
  } finally {
    await browser.close();
    await server.stop();
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
