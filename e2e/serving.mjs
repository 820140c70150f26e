// The serving panel (issue 24), against a release build (dist/):
// - the explorer with the DGX H100 SuperPOD preset, scrolled to the serving panel (serving.html,
//   its own wasm, in a lazy frame that follows the explorer's settled link): Llama 3 8B
//   at TP 8 stays inside the 8-GPU NVLink domain; TP 16 crosses it: the boundary note says so,
//   TPOT rises (the all-reduces cross the network every layer) and the chart's curve is dashed;
// - an invalid deployment (EP 2 on a dense model) names the field and keeps the last chart;
// - the cluster changed in the explorer reaches the frame (1 node: TP 16 no longer fits);
// - the TP x EP x DP x batch search (DeepSeek-V3 on 1,024 GPUs: over 10^4 deployments, 16
//   batches an octave) runs in the page's Web Worker: it answers with progress and no
//   main-thread task over 50 ms, timed from click to answer (target 2 s); a change of input
//   while it runs drops it (no stale answer), and the next search answers the new input;
// - the planner (issue 39): Llama 3 70B FP8 at 100 requests/s, TTFT <= 2 s, TPOT <= 50 ms on
//   the SuperPOD (over 10^4 deployments) in the worker with progress, timed from click to answer
//   (target 2 s); the page's answer is the CLI's for the command line the page prints (the same
//   deployments, fewest GPUs first, the same tokens/s per GPU); a bad rate names its field;
// - compare.html with GB200 NVL72 and H100 RoCE pinned: two curves for DeepSeek-V3 EP 32, the
//   H100 one across the NVLink boundary, the NVL72 one inside; with the SuperPOD pinned too, its
//   framed planner answers the same targets on each design (a row and a front each), each row
//   the CLI's answer for the command line the page prints for that design;
// - screenshots at 1400 x 900 in both themes to e2e/out/serving-*.png; no console error.
//
//   node e2e/serving.mjs            (DIST=path to test another build)

import { chromium } from 'playwright-core';
import { stat, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, CHROMIUM_ARGS, checker, assert, watch, clickPreset, budget, longestTask, cli } from './static-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.env.DIST ?? join(here, '..', 'dist'));
const out = join(here, 'out');

async function main() {
  assert((await stat(join(dist, 'index.html')).catch(() => null)) !== null, `no build in ${dist}`);
  await mkdir(out, { recursive: true });
  const server = await startServer({ root: dist, port: Number(process.env.PORT ?? 0) });
  const base = `${server.origin}/`;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  const { check, summary } = checker();
  const ctx = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 1400, height: 900 } });
  const page = await ctx.newPage();
  const problems = watch(page, []);
  const panel = '[data-testid=serving]';
  let f = null; // the serving frame
  const choose = async (sel, v) => {
    await f.selectOption(sel, String(v));
    await page.waitForTimeout(100);
  };
  const value = async (id) => Number(await f.getAttribute(`[data-testid=${id}]`, 'data-value'));
  try {
    await page.goto(base, { waitUntil: 'load' });
    await page.waitForSelector('[data-preset=dgx-h100-superpod]', { state: 'attached', timeout: 15000 });

    await check('the explorer frames serving.html for its cluster, loaded once scrolled near', async () => {
      await clickPreset(page, 'dgx-h100-superpod');
      await page.waitForSelector('[data-testid=serving-frame]', { state: 'attached', timeout: 20000 });
      // Until scrolled near, the section holds a placeholder of the frame's height, not a frame.
      assert((await page.$$('iframe[data-testid=serving-frame]')).length === 0, 'no frame before the section is seen');
      await page.locator('[data-testid=serving-frame]').scrollIntoViewIfNeeded();
      await page.waitForSelector('iframe[data-testid=serving-frame]', { state: 'attached', timeout: 20000 });
      await page.frameLocator('iframe[data-testid=serving-frame]').locator('[data-testid=serving-tpot]').waitFor({ timeout: 20000 });
      f = await (await page.$('iframe[data-testid=serving-frame]')).contentFrame();
      await page.waitForTimeout(500);
      const hash = await page.evaluate(() => location.hash);
      assert(hash.startsWith('#s=') && f.url().endsWith(hash), `frame ${f.url()} follows the explorer's link ${hash}`);
      assert(f.url().includes('serving.html?frame'), f.url());
      assert(!(await f.isVisible('.masthead')), 'no masthead in the frame');
    });

    await check('TP 8 inside the NVLink domain, TP 16 across it: TPOT rises and the note says so', async () => {
      await choose('#serving-model', 'llama3-8b');
      await choose('#serving-tp', 8);
      assert((await f.getAttribute('[data-testid=serving-boundary]', 'data-crosses')) === 'false', 'TP 8 inside');
      const inside = await value('serving-tpot');
      const note8 = await f.textContent('[data-testid=serving-boundary]');
      assert(note8.includes('TP 8 stays inside one NVLink domain of 8 GPUs') && note8.includes('TP 16'), note8);
      // The chart: the deployment (solid) and its counterpart across the boundary (dashed).
      const crosses = await f.$$eval('[data-testid=serving-chart] path[data-series]', (ps) => ps.map((p) => p.getAttribute('data-crosses')));
      assert(JSON.stringify(crosses) === '["false","true"]', `curves: ${crosses}`);
      await choose('#serving-tp', 16);
      assert((await f.getAttribute('[data-testid=serving-boundary]', 'data-crosses')) === 'true', 'TP 16 crosses');
      const across = await value('serving-tpot');
      const note16 = await f.textContent('[data-testid=serving-boundary]');
      assert(note16.includes('TP 16 spans 2 NVLink domains') && note16.includes('crosses the network'), note16);
      assert(across > inside * 1.2, `TPOT across ${across} ms vs inside ${inside} ms`);
      const band = await f.textContent('[data-testid=serving-band]');
      assert(/Each figure's 90% interval: 9 in 10 published measurements|Not validated/.test(band), band);
      const tpotSub = await f.textContent('[data-testid=serving-tpot] ~ .stat-sub');
      assert(/90%: [\d.]+-[\d.]+|not validated/.test(tpotSub), `TPOT carries its interval: ${tpotSub}`);
      const rows = await f.locator('[data-testid=serving-breakdown] tbody tr').allInnerTexts();
      assert(rows.length === 7 && rows.some((r) => r.startsWith('TP all-reduce')), rows.join(' | '));
      console.log(`    Llama 3 8B batch 32: TPOT ${inside.toFixed(2)} ms at TP 8, ${across.toFixed(2)} ms at TP 16`);
      // One change re-evaluates the deployment, its curve and its counterpart (about 30
      // configurations) and redraws: the whole task, timed in the page, stays short.
      const taskMs = await f.evaluate(async () => {
        const sel = document.querySelector('#serving-batch');
        const t0 = performance.now();
        sel.value = '64';
        sel.dispatchEvent(new Event('change', { bubbles: true }));
        await new Promise((r) => setTimeout(r, 0));
        return performance.now() - t0;
      });
      console.log(`    one change of the panel (evaluate ~30 configurations, draw): ${taskMs.toFixed(1)} ms`);
      assert(taskMs < 50, `the panel's update took ${taskMs} ms`);
    });

    await check('the explorer cluster reaches the frame: on 1 node TP 16 no longer fits', async () => {
      await page.fill('#nodes-number', '1');
      await page.press('#nodes-number', 'Enter');
      await f.waitForSelector('[data-testid=serving-error]', { timeout: 5000 });
      const err = await f.textContent('[data-testid=serving-error]');
      assert(err.includes('the cluster has 8'), err);
      assert((await f.$$('[data-testid=serving-chart] path[data-series]')).length === 2, 'the last valid chart stays');
      await page.fill('#nodes-number', '128');
      await page.press('#nodes-number', 'Enter');
      await f.waitForSelector('[data-testid=serving-error]', { state: 'detached', timeout: 5000 });
      await choose('#serving-tp', 8);
    });

    await check('the frame states its cluster in words; a refused model keeps the last model named (issue 37)', async () => {
      const line = await f.textContent('[data-testid=cluster-line]');
      assert(line.startsWith('Cluster: 128 nodes × 8 H100') && line.includes('1024 GPUs'), line);
      assert((await f.$('[data-testid=cluster-link]')) === null, 'framed: no link back to the explorer it is in');
      const was = await f.getAttribute('[data-testid=serving-shown]', 'data-model');
      await choose('#serving-model', 'deepseek-v3');
      await f.waitForSelector('[data-testid=serving-error]', { timeout: 5000 });
      const shown = await f.textContent('[data-testid=serving-shown]');
      assert(shown.startsWith(`Still showing ${was}:`) && (await f.getAttribute('[data-testid=serving-shown]', 'data-model')) === was, shown);
      await choose('#serving-model', was);
      await f.waitForSelector('[data-testid=serving-error]', { state: 'detached', timeout: 5000 });
    });

    await check('an invalid deployment names the field and keeps the last chart', async () => {
      await choose('#serving-ep', 2);
      const err = await f.textContent('[data-testid=serving-error]');
      assert((await f.getAttribute('[data-testid=serving-error]', 'data-field')) === 'ep' && err.includes('ep 1'), err);
      assert((await f.getAttribute('#serving-ep', 'aria-invalid')) === 'true', 'the EP control is marked');
      assert((await f.$$('[data-testid=serving-chart] path[data-series]')).length === 2, 'the last chart stays');
      await choose('#serving-ep', 1);
      assert((await f.$('[data-testid=serving-error]')) === null, 'the error clears');
    });

    await check('screenshots of the panel, light and dark', async () => {
      await choose('#serving-model', 'llama3-70b');
      await f.locator(panel).screenshot({ path: join(out, 'serving-1400-light.png') });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.waitForTimeout(300);
      await f.locator(panel).screenshot({ path: join(out, 'serving-1400-dark.png') });
      await page.emulateMedia({ colorScheme: 'light' });
    });

    await check('the 10^4-point search runs in the worker: progress, no long task, under 2 s', async () => {
      await choose('#serving-model', 'deepseek-v3');
      await choose('#serving-precision', 'fp8');
      const observe = () => {
        window.__tasks = [];
        new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__tasks.push(e.duration))).observe({ type: 'longtask' });
      };
      await page.evaluate(observe);
      await f.evaluate(observe);
      await f.evaluate(() => {
        window.__status = [];
        const s = document.querySelector('[data-testid=serving-search-status]');
        new MutationObserver(() => window.__status.push(s.textContent)).observe(s, { childList: true, subtree: true, characterData: true });
      });
      const t0 = Date.now();
      await f.click('[data-testid=serving-search]');
      await f.waitForSelector('[data-testid=serving-search-result]', { timeout: 10000 });
      const ms = Date.now() - t0;
      const { tasks, status } = await f.evaluate(() => ({ tasks: window.__tasks, status: window.__status }));
      const top = await page.evaluate(() => window.__tasks);
      const text = await f.textContent('[data-testid=serving-search-result]');
      console.log(`    search: ${ms} ms, ${status.filter((s) => s.startsWith('searching')).length} progress updates, long tasks ${JSON.stringify(tasks.concat(top).map(Math.round))}; ${text.slice(0, 150)}`);
      assert(status.some((s) => /searching: \d+% of \d+ deployments/.test(s)), `progress shown: ${JSON.stringify(status)}`);
      const res = await f.$eval('[data-testid=serving-search-result]', (e) => ({ tried: +e.dataset.tried, where: e.dataset.where, ms: +e.dataset.ms }));
      console.log(`    ${res.tried} deployments tried in the ${res.where} (${res.ms} ms as the page timed it)`);
      assert(res.tried >= 10000, `a 10^4-point search: ${res.tried}`);
      assert(res.where === 'worker', `off the main thread: ${res.where}`);
      longestTask('the 10^4-point serving search', tasks.concat(top));
      budget('the 10^4-point serving search, click to answer', ms, 2000, 10000);
      await f.locator('[data-testid=serving-search-result]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(out, 'serving-search-1400-light.png') });
      assert(/Best at ≥ 20 tokens\/s per user: TP \d+ × EP \d+ × DP \d+/.test(text), text);
      // Its layout can be taken into the panel.
      const tp = await f.getAttribute('[data-testid=serving-search-result]', 'data-tp');
      await f.click('[data-testid=serving-search-result] button');
      await page.waitForTimeout(100);
      assert((await f.$eval('#serving-tp', (s) => s.value)) === tp, 'the best layout is applied');
    });

    await check('a change of input while the search runs drops it; the next search answers the new input', async () => {
      await choose('#serving-model', 'qwen3-235b-a22b');
      // The search starts and, in the same task (before any answer can come back from the
      // worker), the target changes: the running search is cancelled and its answer dropped.
      await f.evaluate(() => {
        document.querySelector('[data-testid=serving-search]').click();
        const i = document.querySelector('#serving-target');
        i.value = '30';
        i.dispatchEvent(new Event('change', { bubbles: true }));
      });
      await page.waitForTimeout(1500);
      const stale = await f.$('[data-testid=serving-search-result]');
      assert(stale === null, `no answer for the old target: ${stale && (await stale.textContent())}; target ${await f.$eval('#serving-target', (e) => e.value)}`);
      assert((await f.textContent('[data-testid=serving-search-status]')) === '', 'no search running');
      await f.click('[data-testid=serving-search]');
      await f.waitForSelector('[data-testid=serving-search-result]', { timeout: 10000 });
      const text = await f.textContent('[data-testid=serving-search-result]');
      assert(/at ≥ 30 tokens\/s per user|reaches 30 tokens\/s per user/.test(text), text);
    });

    await check('the planner answers in the worker, as the CLI does for the line the page prints', async () => {
      await choose('#serving-model', 'llama3-70b');
      await choose('#serving-precision', 'fp8');
      const rate = f.locator('#plan-rate');
      await rate.fill('100');
      await rate.dispatchEvent('change');
      await f.locator('[data-testid=plan]').scrollIntoViewIfNeeded();
      await f.evaluate(() => {
        window.__tasks = [];
        window.__planStatus = [];
        const s = document.querySelector('[data-testid=plan-status]');
        new MutationObserver(() => window.__planStatus.push(s.textContent)).observe(s, { childList: true, subtree: true, characterData: true });
      });
      const t0 = Date.now();
      await f.click('[data-testid=plan-run]');
      await f.waitForSelector('[data-testid=plan-result]', { timeout: 20000 });
      const ms = Date.now() - t0;
      const res = await f.$eval('[data-testid=plan-result]', (e) => ({ ...e.dataset, text: e.textContent }));
      const { tasks, status } = await f.evaluate(() => ({ tasks: window.__tasks, status: window.__planStatus }));
      console.log(`    plan: ${ms} ms click to answer, ${res.evaluated} deployments evaluated in the ${res.where}; ${res.text.slice(0, 160)}`);
      assert(status.some((s) => /planning: \d+% of \d+ layouts/.test(s)), `progress shown: ${JSON.stringify(status)}`);
      assert(Number(res.evaluated) >= 10000, `a 10^4-deployment plan: ${res.evaluated}`);
      assert(res.where === 'worker', `off the main thread: ${res.where}`);
      longestTask('the 10^4-deployment plan', tasks);
      budget('the 10^4-deployment plan, click to answer', ms, 2000, 10000);
      await f.locator('[data-testid=plan]').screenshot({ path: join(out, 'serving-plan-light.png') });
      // The CLI, given the line the page prints, lists the same deployments.
      const line = (await f.textContent('[data-testid=plan-cli] code')).trim();
      assert(line.startsWith('fabricscope serve --search --rate 100 ') && line.includes('--precision fp8'), line);
      const v = JSON.parse(cli([...line.split(/\s+/).slice(1), '--json']));
      const rows = await f.$$eval('[data-testid=plan-table] tbody tr', (trs) => trs.map((t) => ({ gpus: +t.dataset.gpus, mode: t.dataset.mode, perGpu: +t.querySelector('td[data-value]').dataset.value })));
      assert(rows.length === v.deployments.length && rows.length > 0, `${rows.length} rows, CLI ${v.deployments.length}`);
      rows.forEach((r, i) => {
        const d = v.deployments[i];
        assert(r.gpus === d.gpus && r.mode === d.mode && Math.abs(r.perGpu / d.tokens_per_s_per_gpu - 1) < 1e-9, `row ${i + 1}: page ${JSON.stringify(r)}, CLI ${d.gpus} ${d.mode} ${d.tokens_per_s_per_gpu}`);
      });
      assert(Number(res.gpus) === v.deployments[0].gpus && res.label.length > 0, `${res.gpus} vs ${v.deployments[0].gpus}`);
      // The chart: one front per design, the smallest ringed and named in its legend.
      const legend = await f.$$eval('[data-testid=plan-chart] text[data-role=legend]', (ts) => ts.map((t) => t.textContent));
      assert(legend.some((l) => l.startsWith(`fewest GPUs: ${v.deployments[0].gpus} `)), legend.join(' | '));
      // A listed deployment is shown in the panel above (its decode pool's layout).
      const i = await f.$$eval('[data-testid=plan-table] tbody tr', (trs) => trs.findIndex((t) => t.querySelector('button')));
      assert(i >= 0, 'a row that can be shown');
      const pool = v.deployments[i].layout ?? v.deployments[i].decode;
      await f.click(`[data-testid=plan-table] tbody tr:nth-child(${i + 1}) button`);
      await f.waitForFunction((tp) => document.querySelector('[data-testid=serving-shown]')?.textContent.includes(`TP ${tp} ×`), pool.tp, { timeout: 10000 });
      assert((await f.$eval('#serving-tp', (e) => e.value)) === String(pool.tp), 'the TP picker shows the pool');
      // A bad rate names the field and its allowed values; the last answer stays.
      await f.evaluate(() => {
        const i = document.querySelector('#plan-rate');
        i.type = 'text';
        i.value = 'lots';
        i.dispatchEvent(new Event('change', { bubbles: true }));
      });
      const err = await f.textContent('[data-testid=plan-input-error]');
      assert(err.startsWith('Requests/s:') && err.includes('0.001 to 1000000') && err.includes("'lots'"), err);
      assert((await f.$('[data-testid=plan-result]')) !== null, 'the answer stays');
    });

    await check('compare.html: NVL72 against 8-GPU RoCE nodes, two curves, the boundary on the right one', async () => {
      await page.goto(`${base}compare.html#s=v1.e30`, { waitUntil: 'load' });
      await page.evaluate(() => localStorage.clear());
      await page.reload({ waitUntil: 'load' });
      await page.waitForSelector('[data-testid=compare]', { timeout: 15000 });
      while ((await page.$$('[data-testid=design-remove]')).length > 0) {
        await page.click('[data-testid=design-remove]');
        await page.waitForTimeout(50);
      }
      for (const id of ['gb200-nvl72', 'h100-roce']) {
        await clickPreset(page, id);
        await page.waitForTimeout(100);
        await page.click('[data-testid=pin]');
        await page.waitForTimeout(100);
      }
      const cmp = '[data-testid=compare-serving]';
      await page.waitForSelector(cmp, { state: 'attached', timeout: 15000 });
      await page.locator(cmp).scrollIntoViewIfNeeded();
      // Drawn once on screen (the panel waits while off screen).
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=compare-serving-chart] path[data-series]').length === 2, null, { timeout: 10000 });
      const curves = await page.$$eval('[data-testid=compare-serving-chart] path[data-series]', (ps) => ps.map((p) => p.getAttribute('data-crosses')));
      const legend = await page.$$eval('[data-testid=compare-serving-chart] text[data-role=legend]', (ts) => ts.map((t) => t.textContent));
      const refused = await page.$$eval('[data-testid=compare-serving-refused] li', (ls) => ls.map((l) => l.textContent));
      console.log(`    legend: ${legend.join(' | ')}; refused: ${refused.join(' | ')}`);
      assert(curves.length === 2, `two curves: ${curves} (refused: ${refused})`);
      assert(legend.some((l) => l.startsWith('A ·') && l.includes('EP 32 inside NVLink')), legend.join(' | '));
      assert(legend.some((l) => l.startsWith('B ·') && l.includes('EP 32 across NVLink')), legend.join(' | '));
      await page.locator(cmp).screenshot({ path: join(out, 'serving-compare-light.png') });
      // A design that cannot host the deployment is named, not dropped: EP 512 over DP 512
      // needs 512 GPUs; the NVL72 design has 288.
      await page.selectOption('#cmp-serving-dp', '512');
      await page.selectOption('#cmp-serving-ep', '512');
      await page.waitForTimeout(300);
      const refused512 = await page.$$eval('[data-testid=compare-serving-refused] li', (ls) => ls.map((l) => l.textContent));
      const curves512 = await page.$$eval('[data-testid=compare-serving-chart] path[data-series]', (ps) => ps.length);
      assert(refused512.length === 1 && refused512[0].startsWith('A ·') && refused512[0].includes('cannot host it') && refused512[0].includes('288'), `refused: ${refused512}`);
      assert(curves512 === 1, `the other design still drawn: ${curves512}`);
    });

    await check('compare.html frames the planner on every pinned design: one row each, as the CLI answers each', async () => {
      // The designs pinned by the check above (GB200 NVL72, H100 RoCE), plus the SuperPOD.
      await page.selectOption('#cmp-serving-dp', '1');
      await page.selectOption('#cmp-serving-ep', '1');
      await clickPreset(page, 'dgx-h100-superpod');
      await page.waitForTimeout(100);
      await page.click('[data-testid=pin]');
      await page.waitForTimeout(200);
      await page.locator('[data-testid=serving-section]').scrollIntoViewIfNeeded();
      await page.waitForSelector('iframe[data-testid=serving-frame]', { state: 'attached', timeout: 20000 });
      const g = await (await page.$('iframe[data-testid=serving-frame]')).contentFrame();
      await g.waitForSelector('[data-testid=plan-designs-run]', { timeout: 20000 });
      await g.click('[data-testid=plan-designs-run]');
      await g.waitForSelector('[data-testid=plan-designs-result]', { timeout: 20000 });
      const verdict = await g.textContent('[data-testid=plan-designs-result]');
      const rows = await g.$$eval('[data-testid=plan-designs-table] tbody tr', (trs) => trs.map((t) => ({ gpus: +t.dataset.gpus, perGpu: +(t.dataset.perGpu ?? 0), text: t.textContent })));
      console.log(`    ${verdict}`);
      assert(rows.length === 3, `a row per pinned design: ${rows.length}`);
      const lines = await g.$$eval('[data-testid=plan-designs-cli] code', (cs) => cs.map((c) => c.textContent.split('\n')[1]));
      assert(lines.length === 3, `a command line per design: ${lines.length}`);
      lines.forEach((line, i) => {
        const v = JSON.parse(cli([...line.trim().split(/\s+/).slice(1), '--json']));
        const d = v.deployments[0];
        assert(d && rows[i].gpus === d.gpus && Math.abs(rows[i].perGpu / d.tokens_per_s_per_gpu - 1) < 1e-9, `design ${i}: page ${JSON.stringify(rows[i])}, CLI ${d && d.gpus} ${d && d.tokens_per_s_per_gpu}`);
      });
      const fewest = Math.min(...rows.map((r) => r.gpus));
      assert(verdict.includes(`fewest GPUs: ${fewest},`) || verdict.includes(`on ${fewest} GPUs`), `${verdict} (fewest ${fewest})`);
      const fronts = await g.$$eval('[data-testid=plan-designs-chart] g[data-series]', (gs) => gs.length);
      assert(fronts === 3, `one front per design: ${fronts}`);
      await page.locator('[data-testid=serving-section]').screenshot({ path: join(out, 'serving-plans-compare-light.png') });
    });

    await check('no console error', async () => {
      assert(problems.length === 0, problems.join('\n'));
    });
  } finally {
    await browser.close();
    await server.stop();
  }
  process.exit(summary('e2e serving') ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
