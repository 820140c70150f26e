// "Your cluster, measured" (issue 40) on check.html, against a release build (dist/):
// - two published one-node logs (validation/logs/) chosen as files are fitted in the page's
//   worker: the fit in words, each parameter with its uncertainty, each row against the catalog
//   and the calibrated prediction; the downloaded cluster.json is byte for byte what
//   `fabricscope calibrate --json` prints for the same logs (the CLI with no cluster flags: the
//   page's default design);
// - logs of two clusters are refused with the reason;
// - the A3 Mega two-node log calibrated, "Serve on this cluster, as measured" opens serving.html
//   with the calibration in its link's cluster: the panel says "Calibrated from 1 log" with the
//   scale note, and TP 16 across the two nodes gives the tokens/s per GPU
//   `fabricscope serve --calibration cluster.json` gives, and its search `serve --search --calibration`'s; the link survives a reload; a damaged
//   `cal=` is named and the catalog's numbers shown;
// - the explorer as measured: check.html's link opens measured.html (index.html with the same
//   link moves there), whose headline busbw and training step equal `collective` and `search
//   --calibration cluster.json`, with the words "Calibrated from 1 log"; its congestion section's
//   step alone is that step and its median over seeds `train --calibration --routing`'s; a reload keeps it, another
//   GPU drops it with a note; compare.html puts "As designed" and "As measured" side by side;
// - screenshots to e2e/out/calibrate-*.png; no console error.
//
//   node e2e/calibrate.mjs            (DIST=path to test another build)

import { chromium } from 'playwright-core';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, CHROMIUM_ARGS, checker, assert, watch, cli } from './static-server.mjs';
import { congestionFrame, layoutFlags } from './congestion-frame.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.env.DIST ?? join(here, '..', 'dist'));
const logs = join(here, '..', 'validation', 'logs');
const out = join(here, 'out');

async function main() {
  assert((await stat(join(dist, 'check.html')).catch(() => null)) !== null, `no check.html in ${dist}: run bash scripts/build.sh first`);
  await mkdir(out, { recursive: true });
  const server = await startServer({ root: dist, port: Number(process.env.PORT ?? 0) });
  const base = `${server.origin}/`;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  const { check, summary } = checker();
  const ctx = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  const page = await ctx.newPage();
  const problems = watch(page, []);
  const file = (name) => join(logs, name);
  const calibrateOn = async (names) => {
    await page.goto(`${base}check.html`, { waitUntil: 'load' });
    await page.waitForSelector('[data-testid=calibrate-files]', { state: 'attached', timeout: 15000 });
    await page.setInputFiles('[data-testid=calibrate-files]', names.map(file));
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=calibrate-logs] li').length === n, names.length, { timeout: 10000 });
    await page.click('[data-testid=calibrate-run]');
    await page.waitForSelector('[data-testid=calibration-result], [data-testid=calibration-error]', { timeout: 20000 });
  };
  try {
    await check('two one-node logs: the fit in words, the parameters, the rows; cluster.json is the CLI\'s file', async () => {
      const names = ['h100-1node-all-gather-ring.txt', 'h100-1node-all-reduce-nvls.txt'];
      await calibrateOn(names);
      const summaryText = await page.textContent('[data-testid=calibration-summary]');
      assert(summaryText.includes('Inside the node as designed') && summaryText.includes('the network: no log crosses it'), summaryText);
      const params = await page.$$eval('[data-testid=calibration-parameters] tbody tr', (rs) => rs.map((r) => r.dataset.name));
      assert(params.includes('scale_up_bandwidth_share'), params.join(', '));
      const rows = await page.$$eval('[data-testid=calibration-rows] tbody tr', (rs) => rs.length);
      assert(rows > 20, `${rows} rows`);
      await page.locator('[data-testid=calibrate]').screenshot({ path: join(out, 'calibrate-fit-light.png') });
      const [d] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=calibration-download]')]);
      assert(d.suggestedFilename() === 'cluster.json', d.suggestedFilename());
      const downloaded = (await readFile(await d.path())).toString();
      // The CLI names a log by the path it was given: run it on the bare names.
      const want = cli(['calibrate', ...names.map(file), '--json']).replaceAll(`${logs}/`, '');
      assert(downloaded === want, `the page's cluster.json differs from calibrate --json (${downloaded.length} vs ${want.length} bytes)`);
    });

    await check('logs of two clusters are refused with the reason', async () => {
      await calibrateOn(['h100-2node-a3mega-all-reduce.txt', 'h100-1node-all-reduce-nvls.txt']);
      const err = await page.textContent('[data-testid=calibration-error]');
      assert(err.includes('are not the same cluster') && err.includes('calibrate on the logs of one cluster'), err);
    });

    await check('the A3 Mega log: serving.html on the cluster as measured equals serve --calibration', async () => {
      await calibrateOn(['h100-2node-a3mega-all-reduce.txt']);
      const summaryText = await page.textContent('[data-testid=calibration-summary]');
      assert(summaryText.includes('The NICs deliver') || summaryText.includes('The network delivers'), summaryText);
      const [d] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=calibration-download]')]);
      const path = join(tmpdir(), `fabricscope-e2e-cluster-${process.pid}.json`);
      await writeFile(path, await readFile(await d.path()));
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('[data-testid=calibration-serving]')]);
      assert(page.url().includes('serving.html#s='), page.url());
      await page.waitForSelector('[data-testid=serving-calibrated]', { timeout: 20000 });
      await page.selectOption('#serving-tp', '16');
      await page.waitForFunction(() => document.querySelector('[data-testid=serving-shown]')?.textContent.includes('TP 16'), null, { timeout: 10000 });
      const note = await page.textContent('[data-testid=serving-calibrated]');
      assert(note.startsWith('Calibrated from 1 log:') && note.includes('measured at 2 nodes, predicted at 2'), note);
      const perGpu = Number(await page.getAttribute('[data-testid=serving-per-gpu]', 'data-value'));
      const v = JSON.parse(cli(['serve', '--calibration', path, '--nodes', '2', '--model', 'llama3-70b', '--tp', '16', '--batch', '32', '--json']));
      assert(Math.abs(perGpu / v.tokens_per_s_per_gpu - 1) < 1e-9, `page ${perGpu} vs CLI ${v.tokens_per_s_per_gpu}`);
      assert(Math.abs(v.calibration.catalog_tokens_per_s_per_gpu / v.tokens_per_s_per_gpu - 1) > 0.01, 'the calibration moves TP 16 across the two nodes');
      await page.screenshot({ path: join(out, 'calibrate-serving-light.png') });
      // The search runs on the cluster as measured, as serve --search --calibration does.
      const value = (sel) => page.$eval(sel, (e) => e.value);
      const [model, precision, input, context, target] = [await value('#serving-model'), await value('#serving-precision'), await value('#serving-input'), await value('#serving-context'), await value('#serving-target')];
      await page.click('[data-testid=serving-search]');
      await page.waitForSelector('[data-testid=serving-search-result]', { timeout: 60000 });
      const got = await page.$eval('[data-testid=serving-search-result]', (e) => ({ tp: +e.dataset.tp, ep: +e.dataset.ep, dp: +e.dataset.dp, batch: +e.dataset.batch }));
      const searched = JSON.parse(cli(['serve', '--calibration', path, '--nodes', '2', '--model', model, '--precision', precision, '--input-len', input, '--context', context, '--min-tokens-per-user', target, '--search', '--json']));
      const best = searched.best;
      assert(best && got.tp === best.tp && got.ep === best.ep && got.dp === best.dp && got.batch === best.batch, `page ${JSON.stringify(got)}, serve --search --calibration ${JSON.stringify(best)}`);
      assert(searched.calibration.startsWith('calibrated from 1 log'), searched.calibration);
      // The link carries the calibration through a reload.
      await page.reload({ waitUntil: 'load' });
      await page.waitForSelector('[data-testid=serving-calibrated]', { timeout: 20000 });
      // An older link's damaged `cal=` is named, and the catalog's numbers shown.
      await page.goto(`${base}serving.html#s=v1.e30&cal=v1.!!`, { waitUntil: 'load' });
      await page.reload({ waitUntil: 'load' });
      await page.waitForSelector('[data-testid=serving-calibration-error]', { timeout: 20000 });
      const why = await page.textContent('[data-testid=serving-calibration-error]');
      assert(why.includes('was not applied') && why.includes('damaged'), why);
      assert((await page.$('[data-testid=serving-calibrated]')) === null, 'no calibrated note');
    });

    await check('the A3 Mega log: the explorer as measured (measured.html) heads and trains as collective and search --calibration; compare puts as designed and as measured side by side', async () => {
      await calibrateOn(['h100-2node-a3mega-all-reduce.txt']);
      const [d] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=calibration-download]')]);
      const path = join(tmpdir(), `fabricscope-e2e-cluster-x-${process.pid}.json`);
      await writeFile(path, await readFile(await d.path()));
      const explorerHref = await page.getAttribute('[data-testid=calibration-explorer-measured]', 'href');
      const compareHref = await page.getAttribute('[data-testid=calibration-compare]', 'href');
      assert(explorerHref.startsWith('measured.html#s='), explorerHref);
      // index.html with the same link opens measured.html (assets/pages.js): the explorer's own
      // wasm reads no calibration.
      await page.goto(`${base}${explorerHref.replace('measured.html', '')}`, { waitUntil: 'load' });
      await page.waitForURL(/measured\.html#s=/, { timeout: 10000 });
      await page.waitForSelector('[data-testid=calibrated]', { timeout: 20000 });
      const words = await page.textContent('[data-testid=calibrated]');
      assert(words.startsWith('Calibrated from 1 log: measured at 2 nodes, predicted at 2'), words);
      const busbw = Number(await page.getAttribute('[data-testid=busbw-value]', 'data-value'));
      const one = JSON.parse(cli(['collective', '--calibration', path, '--op', 'all_reduce', '--bytes', '1G', '--json']));
      assert(Math.abs(busbw / one.busbw_GBps - 1) < 1e-9, `headline ${busbw} vs collective --calibration ${one.busbw_GBps}`);
      const plain = JSON.parse(cli(['collective', '--gpu', 'h100', '--nodes', '2', '--op', 'all_reduce', '--bytes', '1G', '--json']));
      assert(Math.abs(busbw / plain.busbw_GBps - 1) > 0.02, `the calibration moves the headline: ${busbw} vs ${plain.busbw_GBps}`);
      // The interval the page prints is the CLI's (rounded as the page rounds it).
      const interval = await page.textContent('[data-testid=interval]');
      const iv = one.intervals.busbw_GBps;
      assert(interval.includes(`${Math.round(iv.lo)}`) && interval.includes(`${Math.round(iv.hi)}`), `${interval} vs ${iv.lo}-${iv.hi}`);
      await page.waitForFunction(() => document.querySelector('[data-testid=training]')?.getAttribute('aria-busy') === 'false' && document.querySelector('[data-testid=step-time]'), null, { timeout: 120000 });
      const trainWords = await page.textContent('[data-testid=training-calibrated]');
      assert(trainWords.startsWith('Calibrated from 1 log'), trainWords);
      const step = Number(await page.getAttribute('[data-testid=step-time]', 'data-value'));
      const s = JSON.parse(cli(['search', '--calibration', path, '--model', 'llama3-8b', '--top', '1', '--json']));
      const best = (Array.isArray(s) ? s : s.best)[0] ?? (Array.isArray(s.best) ? s.best[0] : s.best);
      assert(Math.abs(step / best.step_time_s - 1) < 1e-9, `explorer step ${step} vs search --calibration ${best.step_time_s}`);
      const band = await page.textContent('[data-testid=training-band]');
      assert(band.includes('90%'), band);
      // The congestion section studies the cluster as measured: its step alone is the
      // calibrated step, and its median over seeds is `train --calibration --routing`'s.
      const f = await congestionFrame(page);
      await f.waitForSelector('[data-testid=congestion-calibrated]', { timeout: 30000 });
      await f.waitForSelector('[data-testid=step-over-seeds][data-current=true] [data-testid=step-over-seeds-numbers]', { timeout: 120000 });
      const cg = await f.$eval('[data-testid=step-over-seeds-numbers]', (n) => ({ alone: +n.dataset.alone, p50: +n.dataset.p50, seeds: +n.dataset.seeds }));
      const routing = await f.$eval('#cg-routing', (e) => e.value);
      assert(Math.abs(cg.alone / step - 1) < 1e-9, `congestion alone ${cg.alone} s, explorer as measured ${step} s`);
      const over = JSON.parse(cli(['train', '--calibration', path, '--model', 'llama3-8b', ...layoutFlags(best.mapping), '--routing', routing, '--seeds', String(cg.seeds), '--json']));
      assert(Math.abs(cg.p50 / over.step_time_s_over_seeds.p50 - 1) < 1e-9, `congestion median ${cg.p50} s, train --calibration --routing ${routing}: ${over.step_time_s_over_seeds.p50} s`);
      assert(over.calibration?.logs === 1, JSON.stringify(over.calibration));
      await f.locator('[data-testid=congestion-calibrated]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(out, 'calibrate-congestion-measured.png') });
      await page.locator('[data-testid=calibrated]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(out, 'calibrate-explorer-measured.png') });
      // The link carries the calibration through a reload.
      await page.reload({ waitUntil: 'load' });
      await page.waitForSelector('[data-testid=calibrated]', { timeout: 20000 });
      // Another GPU is another cluster: the calibration is dropped, and the page says so.
      await page.selectOption('#gpu-select', 'b200');
      await page.waitForSelector('[data-testid=link-notes]', { timeout: 10000 });
      const notes = await page.textContent('[data-testid=link-notes]');
      assert(notes.includes('calibration no longer applies'), notes);
      assert((await page.$('[data-testid=calibrated]')) === null, 'no calibrated words after the drop');
      // Compare: as designed and as measured side by side.
      await page.goto(`${base}${compareHref}`, { waitUntil: 'load' });
      await page.waitForSelector('[data-testid=delta] tr[data-row=step_time_s] td[data-value]', { timeout: 60000 });
      await page.waitForFunction(() => !document.querySelector('[data-testid=compare-readout]')?.textContent.includes('Searching'), null, { timeout: 120000 });
      const names = await page.textContent('[data-testid=compare]');
      assert(names.includes('As designed') && names.includes('As measured'), 'both designs named');
      const bus = await page.$$eval('[data-testid=delta] tr[data-row=allreduce_busbw_GBps] td[data-value]', (tds) => tds.map((t) => +t.dataset.value));
      assert(bus.length === 2 && Math.abs(bus[0] / plain.busbw_GBps - 1) < 1e-9 && Math.abs(bus[1] / busbw - 1) < 1e-9, `compare's busbw row ${bus}: as designed ${plain.busbw_GBps}, as measured ${busbw}`);
      await page.screenshot({ path: join(out, 'calibrate-compare-measured.png'), fullPage: false });
    });

    await check('no console error', async () => {
      assert(problems.length === 0, problems.join('\n'));
    });
  } finally {
    await browser.close();
    await server.stop();
  }
  process.exit(summary('e2e calibrate') ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
