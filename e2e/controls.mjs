// End-to-end suite for issue 9's controls: every control shows the state the model uses after
// any sequence of picker changes, presets, slider moves, typed numbers, link loads and
// imports (scripted and seeded random sequences); a GPU brings its own fabric; number boxes
// apply on commit; 1-8 GPUs per node work; GB200 is sized in GPUs at valid stops; on a phone
// the headline numbers stay on screen. Screenshots go to e2e/out/controls-*.png.
//
//   node e2e/controls.mjs        (DIST=another build, SEED=n for other random sequences,
//                                 STEPS=n per random sequence, FABRICSCOPE=path to the CLI)

import { chromium } from 'playwright-core';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, CHROMIUM_ARGS, checker, assert, watch, clickPreset, cli } from './static-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const dist = resolve(process.env.DIST ?? join(root, 'dist'));
const out = join(here, 'out');
const SEED = Number(process.env.SEED ?? 9);
const STEPS = Number(process.env.STEPS ?? 40);
const COUNTS = ['nodes', 'gpn', 'nics', 'leaves', 'spines', 'radix'];
const FIELDS = { nodes: 'nodes', gpn: 'gpus_per_node', nics: 'nics_per_node', leaves: 'leaf_switches', spines: 'spine_switches', radix: 'switch_radix' };

const { results, check, summary } = checker();
/** Console errors, page errors and failed requests of every page opened. */
const problems = [];

/** mulberry32: a small seeded generator, so a failing sequence can be replayed with SEED. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function open(browser, url, { width = 1400, height = 900, dark = false, scale = 1 } = {}) {
  const ctx = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: scale, colorScheme: dark ? 'dark' : 'light' });
  const page = await ctx.newPage();
  watch(page, problems);
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
  return { ctx, page };
}

/** Everything the controls show, and the clusters the page says it holds and modelled. */
async function snapshot(page) {
  return page.evaluate((counts) => {
    const q = (s) => document.querySelector(s);
    const main = q('main.layout');
    const sliders = {};
    const boxes = {};
    for (const id of counts) {
      const s = q(`#${id}-slider`);
      sliders[id] = { pos: Number(s?.value), max: Number(s?.max), stops: (s?.dataset.stops ?? '').split(' ').map(Number), label: q(`label[for=${id}-slider]`)?.textContent ?? '' };
      boxes[id] = q(`#${id}-number`)?.value;
    }
    return {
      requested: JSON.parse(main.dataset.requested),
      model: main.dataset.model ? JSON.parse(main.dataset.model) : null,
      selects: { gpu: q('#gpu-select').value, scale_up: q('#scale-up-select').value, nic: q('#nic-select').value },
      checks: { sharp: q('#sharp-check').checked, nvls: q('#nvls-check').checked, rail_optimized: q('#rail-check').checked },
      sliders,
      boxes,
      // Every other select on the page (training, mapping): showing the option its render chose.
      drifted: [...document.querySelectorAll('select')].filter((el) => {
        const o = el.querySelector('option[selected]');
        return o && el.value !== o.value;
      }).map((el) => `${el.id} shows ${el.value}, rendered ${el.querySelector('option[selected]').value}`),
      errors: [...document.querySelectorAll('.controls .error')].map((e) => `${e.id}: ${e.textContent}`),
      stale: q('[data-testid=stale-note]')?.textContent ?? '',
      gpus: Number(q('[data-testid=gpus] .stat-value')?.dataset.value),
      hash: location.hash,
    };
  }, COUNTS);
}

/** The value a count control should show for cluster `c` (GPUs for NVL72 racks). */
function shown(id, c) {
  const v = c[FIELDS[id]];
  if (v === null) return 'auto';
  if (id === 'nodes' && c.scale_up === 'nvl72') return String(v * c.gpus_per_node);
  return String(v);
}

/**
 * The invariant of issue 9: every picker, checkbox, slider and number box shows the cluster
 * the page holds; with no error on screen, that is the cluster the charts were computed from.
 * `typed` names a box whose (refused) text is allowed to differ while its error is shown.
 */
function consistent(s, where, typed = null) {
  const c = s.requested;
  const bad = [];
  for (const [k, v] of Object.entries(s.selects)) if (v !== c[k]) bad.push(`${k} picker shows ${v}, cluster has ${c[k]}`);
  for (const [k, v] of Object.entries(s.checks)) if (v !== c[k]) bad.push(`${k} box is ${v}, cluster has ${c[k]}`);
  bad.push(...s.drifted);
  for (const id of COUNTS) {
    const want = shown(id, c);
    if (s.boxes[id] !== want && !(typed === id && s.errors.some((e) => e.startsWith(`${id}-error`)))) bad.push(`${id} box shows "${s.boxes[id]}", cluster has ${want}`);
    const { pos, stops } = s.sliders[id];
    const auto = ['leaves', 'spines', 'radix'].includes(id);
    const value = want === 'auto' ? null : Number(want);
    let wantPos = 0;
    if (value !== null) {
      let i = 0;
      stops.forEach((st, j) => { if (st <= value) i = j; });
      wantPos = i + (auto ? 1 : 0);
    }
    if (pos !== wantPos) bad.push(`${id} slider at ${pos}, want ${wantPos} for ${want} (stops ${stops.join(',')})`);
  }
  if (s.errors.length === 0) {
    if (!same(s.model, c)) bad.push(`no error shown, but the charts are of ${JSON.stringify(s.model)} and the controls of ${JSON.stringify(c)}`);
    if (/last valid/.test(s.stale)) bad.push(`stale note without an error: ${s.stale}`);
  } else if (!/last valid/.test(s.stale)) {
    bad.push(`errors ${s.errors.join(' | ')} but the results do not say they are of the last valid cluster`);
  }
  assert(bad.length === 0, `${where}:\n       ${bad.join('\n       ')}`);
}

/** A cluster as text with its keys sorted, so two readings of it compare equal. */
function canon(c) {
  return JSON.stringify(c, c && typeof c === 'object' ? Object.keys(c).sort() : undefined);
}

const same = (a, b) => canon(a) === canon(b);

/**
 * The cluster the page's link holds, decoded by the CLI: waits (up to 5 s) for the debounced
 * link to hold `want`, and returns what it holds then.
 */
async function linkCluster(page, want) {
  let got = null;
  for (let t0 = Date.now(); Date.now() - t0 < 5000; await page.waitForTimeout(150)) {
    const m = (await page.evaluate(() => location.hash)).match(/^#s=(v1\.[A-Za-z0-9_-]*)/);
    if (!m) continue;
    got = JSON.parse(cli(['link', '--decode', m[1]])).cluster;
    if (same(got, want)) break;
  }
  assert(got, 'the page wrote a link');
  return got;
}

async function pick(page, sel, value) {
  // As a person would: bring the control on screen first (panels off screen skip rendering
  // while a slider is dragged, and content-visibility leaves their controls without a box).
  await page.$eval(sel, (el) => el.scrollIntoView({ block: 'center' }));
  await page.selectOption(sel, value);
}

async function slide(page, id, pos) {
  await page.$eval(`#${id}-slider`, (el, p) => {
    el.value = String(p);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, pos);
}

async function commit(page, id, text, how = 'Enter') {
  await page.fill(`#${id}-number`, text);
  if (how === 'Enter') await page.press(`#${id}-number`, 'Enter');
  else await page.locator(`#${id}-number`).blur();
}

async function settled(page) {
  await page.waitForFunction(() => document.querySelector('[data-testid=training]')?.getAttribute('aria-busy') === 'false', null, { timeout: 30000 });
}

async function main() {
  assert((await stat(join(dist, 'index.html')).catch(() => null)) !== null, `no build in ${dist}: run trunk build --release --offline first`);
  await mkdir(out, { recursive: true });
  const server = await startServer({ root: dist });
  const base = `${server.origin}/`;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  const pages = [];
  try {
    const desk = await open(browser, base);
    pages.push(desk);
    const { page } = desk;

    await check("issue 9's sequence: NIC HDR, GPU A100, NIC RoCE 800G, preset DGX A100 -> every picker shows the preset", async () => {
      await pick(page, '#nic-select', 'ib-hdr');
      consistent(await snapshot(page), 'after NIC HDR');
      await pick(page, '#gpu-select', 'a100');
      consistent(await snapshot(page), 'after GPU A100');
      await pick(page, '#nic-select', 'roce-800');
      consistent(await snapshot(page), 'after NIC RoCE 800G');
      await page.click('[data-preset=dgx-a100-superpod]');
      const s = await snapshot(page);
      consistent(s, 'after the DGX A100 preset');
      assert(s.selects.nic === 'ib-hdr' && s.selects.gpu === 'a100' && s.selects.scale_up === 'nvlink3', `pickers: ${JSON.stringify(s.selects)}`);
      const link = await linkCluster(page, s.model);
      assert(same(link, s.model), `the link (decoded by the CLI) holds what the pickers show: ${JSON.stringify(link)}`);
    });

    await check('a GPU brings its own scale-up fabric; fabrics it cannot use are disabled with the reason', async () => {
      await page.click('[data-preset=dgx-h100-superpod]');
      const want = { v100: 'nvlink2', a100: 'nvlink3', h100: 'nvlink4', b200: 'nvlink5', 'h100-pcie': 'nvlink-bridge', gb200: 'nvl72', h200: 'nvlink4' };
      for (const [gpu, fabric] of Object.entries(want)) {
        await pick(page, '#gpu-select', gpu);
        const s = await snapshot(page);
        consistent(s, `GPU ${gpu}`);
        assert(s.selects.scale_up === fabric, `${gpu} takes ${fabric}, got ${s.selects.scale_up}`);
        assert(s.errors.length === 0, `${gpu}: no error, got ${s.errors}`);
        const opts = await page.$$eval('#scale-up-select option', (os) => os.map((o) => ({ v: o.value, disabled: o.disabled, text: o.textContent })));
        const off = opts.filter((o) => o.disabled);
        assert(off.length > 0 && off.every((o) => / — \S/.test(o.text)), `${gpu}: disabled fabrics carry a reason: ${JSON.stringify(off)}`);
        assert(!opts.find((o) => o.v === fabric).disabled, `${gpu}: its own fabric is choosable`);
        if (gpu === 'gb200') {
          assert(s.requested.gpus_per_node === 4 && s.sliders.nodes.label.startsWith('GPUs'), `GB200 in trays of 4, sized in GPUs: ${JSON.stringify(s.sliders.nodes)}`);
        }
      }
    });

    await check('number boxes apply on commit: "1e9" and "99999" say why and leave the design; Enter and blur apply', async () => {
      await page.click('[data-preset=dgx-h100-superpod]');
      const s0 = await snapshot(page);
      const link0 = await linkCluster(page, s0.model);
      await page.fill('#nodes-number', '');
      await page.type('#nodes-number', '1e9');
      let s = await snapshot(page);
      assert(same(s.model, s0.model) && s.errors.length === 0, 'keystrokes reach nothing');
      await page.press('#nodes-number', 'Enter');
      s = await snapshot(page);
      assert(s.errors.some((e) => e.startsWith('nodes-error') && /whole number/.test(e)), `error beside the box: ${s.errors}`);
      assert(s.boxes.nodes === '1e9', 'the box keeps what was typed');
      assert(same(s.requested, s0.requested) && same(s.model, s0.model), 'the design stays at 128 nodes');
      consistent(s, 'after 1e9', 'nodes');
      await page.waitForTimeout(500);
      assert(same(await linkCluster(page, s0.model), link0), 'the link was not rewritten');
      await commit(page, 'nodes', '99999');
      s = await snapshot(page);
      assert(s.errors.some((e) => e.startsWith('nodes-error') && /between 1 and 65536/.test(e)), `the range is named: ${s.errors}`);
      assert(s.boxes.nodes === '99999' && s.requested.nodes === 99999, 'never clamped');
      assert(same(s.model, s0.model), 'charts keep the last valid cluster');
      consistent(s, 'after 99999');
      await page.screenshot({ path: join(out, 'controls-desktop-typed.png') });
      await commit(page, 'nodes', '16', 'blur');
      s = await snapshot(page);
      assert(s.errors.length === 0 && s.model.nodes === 16 && s.gpus === 128, `blur applied 16 nodes: ${JSON.stringify(s.model)}`);
      consistent(s, 'after 16 (blur)');
    });

    await check('GPUs per node 1-8 on an 8-GPU NVSwitch node (4 and 2 nodes): each one evaluates and searches, no error', async () => {
      await page.click('[data-preset=dgx-h100-superpod]');
      for (const nodes of [4, 2]) {
        await commit(page, 'nodes', String(nodes));
        for (let g = 1; g <= 8; g++) {
          await commit(page, 'gpn', String(g));
          const s = await snapshot(page);
          consistent(s, `${nodes} nodes of ${g} GPUs`);
          assert(s.errors.length === 0 && s.gpus === nodes * g, `${nodes} x ${g}: ${s.gpus} GPUs, errors ${s.errors}`);
          await settled(page);
          const err = await page.$eval('[data-testid=training]', (e) => e.querySelector('.error')?.textContent ?? null);
          assert(err === null, `${nodes} x ${g}: training says ${err}`);
          assert(await page.$('[data-testid=step-time]'), `${nodes} x ${g}: a step time`);
        }
      }
    });

    await check('GB200 NVL72: sized in GPUs, every slider stop is valid, a tray is explained', async () => {
      await page.click('[data-preset=gb200-nvl72]');
      let s = await snapshot(page);
      consistent(s, 'GB200 preset');
      assert(s.boxes.nodes === '288', `288 GPUs (4 racks), box shows ${s.boxes.nodes}`);
      const note = await page.textContent('[data-testid=tray-note]');
      assert(/4 Blackwell GPUs and 2 Grace CPUs/.test(note) && /18 trays/.test(note), `tray note: ${note}`);
      for (let p = 0; p <= s.sliders.nodes.max; p++) {
        await slide(page, 'nodes', p);
        s = await snapshot(page);
        consistent(s, `GB200 slider position ${p}`);
        assert(s.errors.length === 0, `position ${p} (${s.boxes.nodes} GPUs): ${s.errors}`);
        assert(String(s.gpus) === s.boxes.nodes, `position ${p}: ${s.gpus} GPUs modelled, box ${s.boxes.nodes}`);
      }
      await commit(page, 'nodes', '70');
      s = await snapshot(page);
      assert(s.errors.some((e) => /trays of 4/.test(e)), `70 GPUs: whole trays asked for: ${s.errors}`);
      await commit(page, 'nodes', '144');
      s = await snapshot(page);
      assert(s.errors.length === 0 && s.gpus === 144 && s.requested.nodes === 36, `144 GPUs = 36 trays: ${JSON.stringify(s.requested)}`);
      await page.screenshot({ path: join(out, 'controls-desktop-gb200.png') });
    });

    await check('a link load and an import show the linked cluster in every control', async () => {
      await page.click('[data-preset=h100-roce]');
      await pick(page, '#gpu-select', 'a100');
      await commit(page, 'nics', '4');
      const s = await snapshot(page);
      const link = await linkCluster(page, s.model);
      const again = await open(browser, page.url());
      pages.push(again);
      const r = await snapshot(again.page);
      consistent(r, 'reloaded link');
      assert(same(r.model, link), `reloaded: ${JSON.stringify(r.model)}`);
      const file = join(tmpdir(), `fabricscope-import-${process.pid}.json`);
      const preset = JSON.parse(cli(['link', '--decode', 'v1.eyJnIjoiYjIwMCIsIm4iOjh9']));
      await writeFile(file, JSON.stringify(preset));
      const input = await again.page.$('[data-testid=import-json]');
      if (input) {
        await Promise.all([again.page.waitForEvent('load', { timeout: 10000 }), input.setInputFiles(file)]);
        await again.page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
        const i = await snapshot(again.page);
        consistent(i, 'after importing a B200 file');
        assert(i.requested.gpu === 'b200' && i.requested.nodes === 8, `imported: ${JSON.stringify(i.requested)}`);
        // Issue 20: a file the CLI refuses (an unknown GPU, a negative node count) keeps the
        // design as it was, every control with it, and shows the CLI's message.
        // The link is written debounced after the import's load: wait for it before taking it.
        await linkCluster(again.page, i.model);
        const hash = await again.page.evaluate(() => location.hash);
        for (const body of ['{"cluster":{"gpu":"h900","nodes":2}}', '{"cluster":{"nodes":-4}}']) {
          // The import above reloaded the page: its input is a new element.
          await again.page.setInputFiles('[data-testid=import-json]', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(body) });
          await again.page.waitForFunction(() => /Not imported; the design is unchanged: cluster\./.test(document.querySelector('.export-note')?.textContent ?? ''), null, { timeout: 5000 });
          const r = await snapshot(again.page);
          consistent(r, `after refusing ${body}`);
          const after = await again.page.evaluate(() => location.hash);
          assert(same(r.requested, i.requested), `the design is kept: ${JSON.stringify(r.requested)} vs ${JSON.stringify(i.requested)}`);
          assert(after === hash, `the link is kept: ${after} vs ${hash}`);
        }
      }
      await again.ctx.close();
      pages.pop();
    });

    for (let run = 0; run < 3; run++) {
      const seed = SEED + run;
      await check(`random sequence (seed ${seed}, ${STEPS} steps): after every step every control shows the model's cluster`, async () => {
        const r = rng(seed);
        const any = (xs) => xs[Math.floor(r() * xs.length)];
        const presets = await page.$$eval('[data-preset]', (bs) => bs.map((b) => b.dataset.preset));
        const log = [];
        for (let i = 0; i < STEPS; i++) {
          const kind = any(['gpu', 'gpu', 'scale', 'nic', 'nic', 'preset', 'slider', 'slider', 'slider', 'box', 'check', 'link', 'training']);
          let typed = null;
          if (kind === 'gpu' || kind === 'scale' || kind === 'nic') {
            const sel = { gpu: '#gpu-select', scale: '#scale-up-select', nic: '#nic-select' }[kind];
            const vals = await page.$$eval(`${sel} option`, (os) => os.filter((o) => !o.disabled).map((o) => o.value));
            const v = any(vals);
            log.push(`${kind} ${v}`);
            await pick(page, sel, v);
          } else if (kind === 'preset') {
            const p = any(presets);
            log.push(`preset ${p}`);
            await clickPreset(page, p);
          } else if (kind === 'slider') {
            const id = any(COUNTS);
            const max = Number(await page.getAttribute(`#${id}-slider`, 'max'));
            const p = Math.floor(r() * (max + 1));
            log.push(`slider ${id} ${p}`);
            await slide(page, id, p);
          } else if (kind === 'box') {
            const id = any(['nodes', 'gpn', 'nics', 'leaves']);
            const v = any(['1', '2', '3', '6', '8', '12', '64', '0', '1e9', '99999', 'auto', '']);
            log.push(`box ${id} "${v}"`);
            typed = id;
            await commit(page, id, v, any(['Enter', 'blur']));
          } else if (kind === 'training') {
            const sel = any(['#workload-select', '#tp-select', '#pp-select']);
            // Only what a person could use: on screen, visible and enabled (the mapping panel
            // may be mid-render while a search slice runs).
            await page.$eval(sel, (el) => el.scrollIntoView({ block: 'center' })).catch(() => {});
            const loc = page.locator(sel);
            const usable = (await loc.isVisible().catch(() => false)) && (await loc.isEnabled().catch(() => false));
            if (!usable) continue;
            const vals = await page.$$eval(`${sel} option`, (os) => os.filter((o) => !o.disabled).map((o) => o.value));
            if (vals.length === 0) continue;
            const v = any(vals.filter((x) => x !== 'custom'));
            log.push(`${sel} ${v}`);
            try {
              await page.selectOption(sel, v, { timeout: 5000 });
            } catch {
              log.push(`${sel} could not be chosen now (re-rendered); skipped`);
              continue;
            }
          } else if (kind === 'link') {
            // Opening the page's own link (once the debounced write has happened).
            await page.waitForTimeout(400);
            log.push('reload the link');
            await page.reload({ waitUntil: 'load' });
            await page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
          } else {
            const id = any(['#sharp-check', '#nvls-check', '#rail-check']);
            if (await page.$eval(id, (e) => e.disabled)) continue;
            log.push(`toggle ${id}`);
            await page.click(id);
          }
          const s = await snapshot(page);
          try {
            consistent(s, `step ${i + 1}`, typed);
          } catch (e) {
            throw new Error(`${e.message}\n       after: ${log.join(' → ')}`);
          }
        }
        const s = await snapshot(page);
        if (s.errors.length === 0) {
          const link = await linkCluster(page, s.model);
          assert(same(link, s.model), `the link decodes to what the controls show: ${JSON.stringify(link)} vs ${JSON.stringify(s.model)}`);
        }
      });
    }

    for (const dark of [false, true]) {
      const name = dark ? 'dark' : 'light';
      await check(`phone 390x844 (${name}): the headline numbers stay on screen while the controls scroll; tiers as cards`, async () => {
        const phone = await open(browser, base, { width: 390, height: 844, scale: 2, dark });
        pages.push(phone);
        const p = phone.page;
        await settled(p);
        const bar = '[data-testid=summary-bar]';
        const busbw = Number(await p.getAttribute('[data-testid=busbw-value]', 'data-value'));
        const shownBw = Number(await p.getAttribute(`${bar} b[data-value]`, 'data-value'));
        assert(shownBw === busbw, `summary busbw ${shownBw} = key number ${busbw}`);
        assert(/limited by/.test(await p.textContent(bar)), 'names the limiting tier');
        await p.waitForFunction((b) => /MFU/.test(document.querySelector(b)?.textContent ?? ''), bar, { timeout: 20000 });
        assert(/step [\d.]+ m?s \((90%: [\d.]+-[\d.]+ m?s|not validated m?s)\) · MFU \d+%/.test(await p.textContent(bar)), `the step's 90% interval in the bar: ${await p.textContent(bar)}`);
        await p.screenshot({ path: join(out, `controls-phone-${name}.png`) });
        const start = await p.locator(bar).boundingBox();
        for (const id of ['#nodes-slider', '[data-testid=chart]']) {
          // Scrolled past the bar's place: halfway down the controls, then to the chart.
          await p.$eval(id, (el) => el.scrollIntoView({ block: 'center' }));
          const y = await p.evaluate(() => window.scrollY);
          const box = await p.locator(bar).boundingBox();
          assert(y > start.y, `scrolled past the bar's place (${y} > ${start.y})`);
          assert(box && box.y >= -1 && box.y < 5 && box.height > 10 && box.height < 120, `summary bar pinned at the top while ${id} is on screen: ${JSON.stringify(box)}`);
        }
        await slide(p, 'nodes', 6);
        await p.waitForFunction((b) => Number(document.querySelector(`${b} b[data-value]`)?.dataset.value) === Number(document.querySelector('[data-testid=busbw-value]')?.dataset.value), bar);
        await p.screenshot({ path: join(out, `controls-phone-${name}-scrolled.png`) });
        await p.locator('[data-testid=tiers]').scrollIntoViewIfNeeded();
        const t = await p.$eval('[data-testid=tiers]', (el) => ({
          width: el.querySelector('table').getBoundingClientRect().width,
          rows: [...el.querySelectorAll('tbody tr')].map((r) => r.getBoundingClientRect().height),
        }));
        assert(t.width <= 390, `tiers fit the phone: ${t.width}px`);
        assert(t.rows.every((h) => h < 260), `no tall rows: ${t.rows.map(Math.round)}`);
        const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert(overflow <= 0, `page is ${overflow}px wider than the phone`);
        await p.$eval('[data-testid=tiers]', (el) => el.scrollIntoView({ block: 'start' }));
        await p.screenshot({ path: join(out, `controls-phone-${name}-tiers.png`) });
        await phone.ctx.close();
        pages.pop();
      });
      await check(`desktop 1400x900 (${name}): no summary bar beside the results; screenshot`, async () => {
        const d = await open(browser, base, { dark });
        pages.push(d);
        await settled(d.page);
        assert(!(await d.page.isVisible('[data-testid=summary-bar]')), 'hidden where the results are beside the controls');
        await d.page.screenshot({ path: join(out, `controls-desktop-${name}.png`) });
        await d.ctx.close();
        pages.pop();
      });
    }

    await check('no console errors, page errors or failed requests', async () => {
      assert(problems.length === 0, problems.join('\n'));
    });
  } finally {
    for (const p of pages) await p.ctx.close().catch(() => {});
    await browser.close().catch(() => {});
    await server.stop();
  }
  console.log(`screenshots: ${out}/controls-*.png`);
  process.exit(summary('e2e controls') ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  console.log(`e2e controls: ${results.filter(Boolean).length} passed, ${results.filter((r) => !r).length + 1} failed`);
  process.exit(1);
});
