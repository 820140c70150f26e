// "Your cluster, measured" (issue 40) on check.html, against a release build (dist/):
// - two published one-node logs (validation/logs/) chosen as files are fitted in the page's
//   worker: the fit in words, each parameter with its uncertainty, each row against the catalog
//   and the calibrated prediction; the downloaded cluster.json is byte for byte what
//   `fabricscope calibrate --json` prints for the same logs (the CLI with no cluster flags: the
//   page's default design);
// - logs of two clusters are refused with the reason;
// - the A3 Mega two-node log calibrated, "Serve on this cluster, as measured" opens serving.html
//   with the calibration in its link (`cal=`): the panel says "Calibrated from 1 log" with the
//   scale note, and TP 16 across the two nodes gives the tokens/s per GPU
//   `fabricscope serve --calibration cluster.json` gives; the link survives a reload; a damaged
//   `cal=` is named and the catalog's numbers shown;
// - screenshots to e2e/out/calibrate-*.png; no console error.
//
//   node e2e/calibrate.mjs            (DIST=path to test another build)

import { chromium } from 'playwright-core';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, CHROMIUM_ARGS, checker, assert, watch, cli } from './static-server.mjs';

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
      assert(summaryText.includes('The NICs deliver'), summaryText);
      const [d] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=calibration-download]')]);
      const path = join(tmpdir(), `fabricscope-e2e-cluster-${process.pid}.json`);
      await writeFile(path, await readFile(await d.path()));
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('[data-testid=calibration-serving]')]);
      assert(page.url().includes('serving.html#s=') && page.url().includes('&cal=v1.'), page.url());
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
      // The link carries the calibration through a reload.
      await page.reload({ waitUntil: 'load' });
      await page.waitForSelector('[data-testid=serving-calibrated]', { timeout: 20000 });
      // A damaged calibration is named, and the catalog's numbers shown.
      await page.goto(page.url().replace(/&cal=v1\.[^&]*/, '&cal=v1.!!'), { waitUntil: 'load' });
      await page.reload({ waitUntil: 'load' });
      await page.waitForSelector('[data-testid=serving-calibration-error]', { timeout: 20000 });
      const why = await page.textContent('[data-testid=serving-calibration-error]');
      assert(why.includes('was not applied') && why.includes('damaged'), why);
      assert((await page.$('[data-testid=serving-calibrated]')) === null, 'no calibrated note');
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
