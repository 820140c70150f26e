// No frozen page (issues 9 and 11): serves dist/ and opens the largest jobs and clusters the
// issues name (a DeepSeek-V3-like MoE on 4096 DGX H100 nodes, 262,144 GPUs, a custom MoE on
// 65,536 x 4 GPUs). From the first chart on, while the training search runs and until it has
// answered (rules of thumb included), no main-thread task may last over 50 ms
// (PerformanceObserver 'longtask' entries), the status shows progress, and a key typed into
// the nodes box during the search reaches the screen within 100 ms. The timings are reported
// against those targets and fail the run past a freeze bound (static-server.mjs `budget`), or
// at the target with BENCH_STRICT=1. Exits non-zero on failure.
//
//   node e2e/longtask.mjs            (DIST=path to serve another build)

import { chromium } from 'playwright-core';
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, CHROMIUM_ARGS, checker, assert, watch, budget, longestTask, LONG_TASK_MS } from './static-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.env.DIST ?? join(here, '..', 'dist'));

/** Longest wait from a key press to the next frame while a search runs, ms (the target). */
const INPUT_MS = 100;
/** A key that waits this long for its frame is a frozen page, ms. */
const INPUT_FREEZE_MS = 500;

const CASES = [
  { name: 'DeepSeek-V3-like MoE on 4096 DGX H100 nodes', scenario: { cluster: { nodes: 4096 }, training: { workload: 'deepseek-v3-like' } } },
  { name: '262,144 GPUs (32,768 x 8 H100), Llama 3 70B', scenario: { cluster: { nodes: 32768 }, training: { workload: 'llama3-70b' } } },
  {
    name: 'custom MoE (64 layers, 8192 hidden, 64 experts top-2) on 65,536 x 4 GPUs',
    scenario: { cluster: { nodes: 65536, gpus_per_node: 4, nics_per_node: 4 }, training: { workload: 'custom:64:8192:64:4096:4096:64:2' } },
  },
];

const { check, summary } = checker();

/** Long tasks and key-to-frame delays, recorded in the page from the moment it starts. */
function instrument(longMs) {
  window.__longtasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longtasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  // Long animation frames name what ran (a timer, an input handler, ...): for the report.
  window.__loaf = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.duration > longMs) {
        window.__loaf.push({
          start: Math.round(e.startTime),
          duration: Math.round(e.duration),
          layout: Math.round(e.startTime + e.duration - (e.styleAndLayoutStart || e.startTime + e.duration)),
          by: (e.scripts ?? []).map((x) => `${x.invoker} ${Math.round(x.duration)}ms`).join(', '),
        });
      }
    }
  }).observe({ type: 'long-animation-frame', buffered: true });
  // Every status the training panel shows, however briefly.
  window.__statuses = new Set();
  new MutationObserver(() => {
    const s = document.querySelector('[data-testid=training-status]')?.textContent;
    if (s) window.__statuses.add(s.replace(/\d+%/, 'N%'));
  }).observe(document, { subtree: true, childList: true, characterData: true });
  // Each time the training panel turns busy (a search starts), however briefly: a fast search
  // can start and answer between two polls of the test.
  window.__busyAt = [];
  new MutationObserver(() => {
    if (document.querySelector('[data-testid=training]')?.getAttribute('aria-busy') === 'true') window.__busyAt.push(performance.now());
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['aria-busy'] });
  window.__keys = [];
  document.addEventListener(
    'keydown',
    () => {
      const t0 = performance.now();
      requestAnimationFrame(() => window.__keys.push(performance.now() - t0));
    },
    true,
  );
}

const status = (page) => page.evaluate(() => document.querySelector('[data-testid=training-status]')?.textContent ?? '');
const busy = (page) => page.evaluate(() => document.querySelector('[data-testid=training]')?.getAttribute('aria-busy') === 'true');

async function run(browser, origin, c) {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await ctx.newPage();
  const errors = watch(page, []);
  await page.addInitScript(instrument, LONG_TASK_MS);
  await page.goto(`${origin}/#s=${encodeURIComponent(JSON.stringify(c.scenario))}`, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid=chart] svg', { timeout: 30000 });
  // Loading and the first render are not the search: count from here.
  const from = await page.evaluate(() => performance.now());
  // Progress while it runs, then a key typed during the search (one node fewer: the search
  // starts again on the new cluster, and the page must answer it all the same).
  let typed = false;
  let restarted = false;
  let keyAt = 0;
  const t0 = Date.now();
  while (Date.now() - t0 < 120000) {
    const s = await status(page);
    // Typed mid-search when the poll catches it, else (a fast search) right after it.
    if (!typed && (/searching: \d+% of \d+ layouts/.test(s) || / layouts searched$/.test(s))) {
      await page.focus('#nodes-number');
      keyAt = await page.evaluate(() => performance.now());
      await page.keyboard.press('End');
      await page.keyboard.press('Backspace');
      await page.keyboard.type(String(c.scenario.cluster.nodes - 1).slice(-1));
      typed = true;
      // Typed mid-search, the panel stays busy through the restart (no new mutation).
      restarted = await busy(page);
    }
    // The key restarts the search: wait for that search, not the one it interrupted (seen
    // busy after the key, by the page's own record: it may have answered between polls).
    if (typed && !restarted) restarted = await page.evaluate((t) => window.__busyAt.some((x) => x >= t), keyAt);
    if (restarted && !(await busy(page)) && / layouts searched$/.test(await status(page))) break;
    await page.waitForTimeout(20);
  }
  const res = await page.evaluate(
    (from) => ({ tasks: window.__longtasks.filter((t) => t.start >= from), before: window.__longtasks.filter((t) => t.start < from), keys: window.__keys }),
    from,
  );
  res.seen = await page.evaluate(() => [...window.__statuses]);
  res.loaf = await page.evaluate((from) => window.__loaf.filter((f) => f.start >= from), from);
  res.done = restarted && !(await busy(page)) && / layouts searched$/.test(await status(page));
  res.nodes = await page.inputValue('#nodes-number');
  // The observer itself works here: a deliberate 80 ms task is reported.
  res.probe = await page.evaluate(async () => {
    const n = window.__longtasks.length;
    setTimeout(() => {
      const t = performance.now();
      while (performance.now() - t < 80);
    }, 0);
    await new Promise((ok) => setTimeout(ok, 300));
    return window.__longtasks.slice(n).some((e) => e.duration >= 75);
  });
  await ctx.close();
  return { ...res, typed, errors };
}

async function main() {
  assert((await stat(join(dist, 'index.html')).catch(() => null)) !== null, `no build in ${dist}: run trunk build --release --offline first`);
  const server = await startServer({ root: dist });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  try {
    await check('embed of the step chart, DeepSeek-V3-like on 4096 nodes: the search runs in slices, the chart arrives', async () => {
      const ctx = await browser.newContext({ viewport: { width: 800, height: 450 } });
      const page = await ctx.newPage();
      const errors = watch(page, []);
      await page.addInitScript(instrument, LONG_TASK_MS);
      const s = encodeURIComponent(JSON.stringify(CASES[0].scenario));
      await page.goto(`${server.origin}/embed.html?embed=step#s=${s}`, { waitUntil: 'load' });
      await page.waitForSelector('[data-testid=embed]', { timeout: 30000 });
      const from = await page.evaluate(() => performance.now());
      await page.waitForSelector('[data-testid=embed-chart] svg', { timeout: 120000 });
      const tasks = await page.evaluate((from) => window.__longtasks.filter((t) => t.start >= from).map((t) => Math.round(t.duration)), from);
      await ctx.close();
      assert(errors.length === 0, `page problems: ${errors.join('; ')}`);
      console.log(`    from the embed's first markup to its chart: long tasks ${JSON.stringify(tasks)} ms`);
      longestTask('embed, first markup to chart', tasks);
    });
    for (const c of CASES) {
      await check(c.name, async () => {
        const r = await run(browser, server.origin, c);
        assert(r.errors.length === 0, `page problems: ${r.errors.join('; ')}`);
        assert(r.done, `the search did not answer within 120 s; statuses seen: ${r.seen.join(' | ')}`);
        assert(r.seen.some((s) => /searching: N% of \d+ layouts/.test(s)), `no progress shown; statuses seen: ${r.seen.join(' | ')}`);
        assert(r.probe, 'the longtask observer did not report a deliberate 80 ms task');
        assert(r.nodes === String(c.scenario.cluster.nodes - 1), `the nodes box shows ${r.nodes}, not the key typed`);
        const worst = Math.max(0, ...r.tasks.map((t) => t.duration));
        const load = r.before.map((t) => Math.round(t.duration));
        console.log(`    loading to the first chart: long tasks ${JSON.stringify(load)} ms (not counted); after it: ${r.tasks.length}, longest ${worst.toFixed(0)} ms; key to frame ${r.keys.map((k) => k.toFixed(0)).join(', ')} ms`);
        if (worst > LONG_TASK_MS) console.log(`    long frames: ${JSON.stringify(r.loaf)}`);
        longestTask('from the first chart to the answer', r.tasks.map((t) => t.duration));
        assert(r.keys.length > 0, 'no key reached a frame');
        budget('key typed during the search, to its frame', Math.max(...r.keys), INPUT_MS, INPUT_FREEZE_MS);
      });
    }
  } finally {
    await browser.close();
    await server.stop();
  }
  process.exit(summary('longtask') ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
