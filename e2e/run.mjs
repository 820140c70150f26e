// End-to-end suite: serves dist/ (a `trunk build --release` output) on 127.0.0.1, drives the
// page in headless Chromium through playwright-core, checks that what it shows follows the
// model, and saves screenshots to e2e/out/. Exits non-zero on any failure.
//
//   node e2e/run.mjs            (DIST=path to serve another build)

import { chromium } from 'playwright-core';
import { createServer } from 'node:http';
import { readFile, mkdir, stat } from 'node:fs/promises';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.env.DIST ?? join(here, '..', 'dist'));
const out = join(here, 'out');

// Chromium flags that keep a headless run quiet on a closed network (TOOLCHAIN.md).
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
};

/** A static server for dist/ on a free port; resolves to [server, baseUrl]. */
async function serve(root) {
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let file = normalize(join(root, path));
      if (file !== root && !file.startsWith(root + sep)) throw new Error('outside dist');
      if ((await stat(file).catch(() => null))?.isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': MIME[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return [server, `http://127.0.0.1:${server.address().port}/`];
}

const results = [];
async function check(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    results.push(true);
    console.log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    results.push(false);
    console.log(`FAIL ${name}\n     ${String(e?.message ?? e).split('\n').join('\n     ')}`);
  }
}

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

/** Opens the app in a fresh context; records console errors and failed requests. */
async function open(browser, base, { width, height, scale = 1, dark = false }) {
  const ctx = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: scale, colorScheme: dark ? 'dark' : 'light' });
  const page = await ctx.newPage();
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(`console error: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.on('response', (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));
  await page.goto(base, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
  return { ctx, page, problems };
}

/** The numbers the page shows, read from data attributes (exact, not the rounded text). */
async function readout(page) {
  return page.evaluate(() => {
    const num = (sel) => Number(document.querySelector(sel)?.getAttribute('data-value'));
    return {
      busbw: num('[data-testid=busbw-value]'),
      time: num('[data-testid=time] .stat-value'),
      gpus: num('[data-testid=gpus] .stat-value'),
      algorithm: document.querySelector('[data-testid=algorithm]')?.textContent ?? '',
      valuetext: document.querySelector('#nodes-slider')?.getAttribute('aria-valuetext') ?? '',
      number: document.querySelector('#nodes-number')?.value ?? '',
      svg: document.querySelector('[data-testid=chart] svg')?.outerHTML ?? '',
      error: document.querySelector('#nodes-error')?.textContent ?? null,
    };
  });
}

async function waitForNodes(page, nodes) {
  const want = `${nodes} node${nodes === 1 ? '' : 's'}, `;
  await page.waitForFunction((w) => document.querySelector('#nodes-slider')?.getAttribute('aria-valuetext')?.startsWith(w), want, { timeout: 5000 });
}

const finite = (v) => Number.isFinite(v) && v > 0;

async function main() {
  assert((await stat(join(dist, 'index.html')).catch(() => null)) !== null, `no build in ${dist}: run trunk build --release --offline first`);
  await mkdir(out, { recursive: true });
  const [server, base] = await serve(dist);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ARGS, headless: true });
  const pages = [];
  try {
    const desk = await open(browser, base, { width: 1400, height: 900 });
    pages.push(desk);
    const { page } = desk;
    let start;

    await check('page loads with the default DGX H100-style cluster (4 nodes x 8 H100)', async () => {
      assert((await page.title()).includes('Fabricscope'), 'title names the app');
      start = await readout(page);
      assert(start.valuetext === '4 nodes, 32 GPUs', `slider says "${start.valuetext}"`);
      assert(start.gpus === 32, `GPUs ${start.gpus}`);
      assert(finite(start.busbw) && finite(start.time), `busbw ${start.busbw}, time ${start.time}`);
      assert(start.algorithm.length > 0, 'algorithm named');
      assert(start.svg.includes('busbw, GB/s per direction'), 'y axis states unit and direction');
      const shown = await page.textContent('[data-testid=busbw-value]');
      assert(Math.abs(Number(shown) - start.busbw) / start.busbw < 0.01, `shown ${shown} vs ${start.busbw}`);
    });

    await check('slider is labelled and keyboard-operable (ArrowRight/End/Home)', async () => {
      const label = await page.textContent('label[for=nodes-slider]');
      assert(label?.trim() === 'Nodes', `label "${label}"`);
      await page.focus('#nodes-slider');
      await page.keyboard.press('ArrowRight');
      await waitForNodes(page, 8);
      const r8 = await readout(page);
      assert(r8.gpus === 64 && r8.number === '8', `8 nodes: gpus ${r8.gpus}, box ${r8.number}`);
      assert(r8.svg !== start.svg, 'chart redrawn');
      await page.keyboard.press('End');
      await waitForNodes(page, 1024);
      assert((await readout(page)).gpus === 8192, '1024 nodes x 8');
      await page.keyboard.press('Home');
      await waitForNodes(page, 1);
      assert((await readout(page)).gpus === 8, '1 node x 8');
    });

    await check('more nodes: 1 GiB AllReduce takes longer and busbw never rises (4 to 1024 nodes)', async () => {
      // Home..End steps through 1, 2, 4, ..., 1024 nodes. Past 4 nodes the ring or tree only
      // grows: latency adds up and the NICs stay the bottleneck, so time rises and busbw
      // cannot (the model's invariant; see crates/model tests).
      await page.focus('#nodes-slider');
      await page.keyboard.press('Home');
      await waitForNodes(page, 1);
      const seen = [];
      for (let n = 1; n <= 1024; n *= 2) {
        if (n > 1) {
          await page.keyboard.press('ArrowRight');
          await waitForNodes(page, n);
        }
        const r = await readout(page);
        assert(finite(r.busbw) && finite(r.time), `${n} nodes: busbw ${r.busbw}, time ${r.time}`);
        assert(r.gpus === n * 8, `${n} nodes: ${r.gpus} GPUs`);
        seen.push({ n, ...r });
      }
      const one = seen[0];
      const four = seen[2];
      assert(one.busbw > four.busbw, `NVLink-only (1 node, ${one.busbw}) beats the network (4 nodes, ${four.busbw})`);
      for (let i = 3; i < seen.length; i++) {
        const [a, b] = [seen[i - 1], seen[i]];
        assert(b.time >= a.time, `${b.n} nodes ${b.time} us < ${a.n} nodes ${a.time} us`);
        assert(b.busbw <= a.busbw * (1 + 1e-9), `${b.n} nodes busbw ${b.busbw} > ${a.n} nodes ${a.busbw}`);
      }
      const svgs = new Set(seen.map((s) => s.svg));
      assert(svgs.size === seen.length, 'a different chart for every node count');
    });

    await check('dragging the slider with the mouse updates on input', async () => {
      const box = await page.locator('#nodes-slider').boundingBox();
      assert(box, 'slider has a box');
      const y = box.y + box.height / 2;
      await page.mouse.move(box.x + 2, y);
      await page.mouse.down();
      // Move through the track in steps: input events fire while dragging.
      for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + (box.width * i) / 20, y);
      const mid = await readout(page);
      await page.mouse.move(box.x + box.width - 1, y);
      await page.mouse.up();
      await waitForNodes(page, 1024);
      assert(mid.gpus > 8 && mid.gpus < 8192, `mid-drag the chart already followed (${mid.gpus} GPUs)`);
    });

    await check('number box: a model error shows beside the control and the last chart stays', async () => {
      await page.fill('#nodes-number', '64');
      await waitForNodes(page, 64);
      const good = await readout(page);
      await page.fill('#nodes-number', '0');
      await page.waitForSelector('#nodes-error', { timeout: 5000 });
      const bad = await readout(page);
      assert(/between 1 and/.test(bad.error ?? ''), `error text: ${bad.error}`);
      assert(bad.svg === good.svg && bad.busbw === good.busbw, 'last valid chart and numbers kept');
      assert((await page.getAttribute('#nodes-number', 'aria-invalid')) === 'true', 'box marked invalid');
      await page.screenshot({ path: join(out, 'desktop-error.png') });
      await page.fill('#nodes-number', '12');
      await page.waitForSelector('#nodes-error', { state: 'detached', timeout: 5000 });
      const r = await readout(page);
      assert(r.gpus === 96 && finite(r.busbw), `12 nodes: ${r.gpus} GPUs, busbw ${r.busbw}`);
    });

    await check('screenshots: desktop light and dark (1400x900)', async () => {
      await page.fill('#nodes-number', '4');
      await waitForNodes(page, 4);
      await page.mouse.move(0, 0);
      await page.screenshot({ path: join(out, 'desktop-light.png'), fullPage: true });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.waitForSelector('[data-testid=chart][data-theme=dark]', { timeout: 5000 });
      const svg = (await readout(page)).svg.toUpperCase();
      assert(svg.includes('#161B26'), 'chart redrawn with the dark palette');
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert(bg === 'rgb(12, 16, 24)', `page background follows dark scheme: ${bg}`);
      await page.screenshot({ path: join(out, 'desktop-dark.png'), fullPage: true });
      await page.emulateMedia({ colorScheme: 'light' });
      await page.waitForSelector('[data-testid=chart][data-theme=light]', { timeout: 5000 });
    });

    for (const dark of [false, true]) {
      const name = dark ? 'dark' : 'light';
      await check(`phone 390x844 (${name}): no sideways scroll, compact chart, screenshot`, async () => {
        const phone = await open(browser, base, { width: 390, height: 844, scale: 2, dark });
        pages.push(phone);
        const p = phone.page;
        const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert(overflow <= 0, `page is ${overflow}px wider than the screen`);
        const w = await p.evaluate(() => document.querySelector('[data-testid=chart] svg')?.getAttribute('width'));
        assert(w === '420', `compact chart drawn at 420px, got ${w}`);
        const r = await readout(p);
        assert(finite(r.busbw) && r.gpus === 32, 'numbers shown');
        await p.screenshot({ path: join(out, `phone-${name}.png`), fullPage: true });
      });
    }

    await check('no console errors, page errors or failed requests', async () => {
      const all = pages.flatMap((p) => p.problems);
      assert(all.length === 0, all.join('\n'));
    });
  } finally {
    for (const p of pages) await p.ctx.close().catch(() => {});
    await browser.close().catch(() => {});
    server.close();
  }
  const passed = results.filter(Boolean).length;
  const failed = results.length - passed;
  console.log(`screenshots: ${out}`);
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  console.log(`e2e: ${results.filter(Boolean).length} passed, ${results.filter((r) => !r).length + 1} failed`);
  process.exit(1);
});
