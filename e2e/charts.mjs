// Charts that explain themselves, against a release build (dist/): the throughput chart's
// default view shows the gap between one domain and the whole cluster (linear busbw over the
// bandwidth-bound sizes), the log view is a click away, the cursor reads exact values by
// pointer and keyboard into an aria-live region, the headline size is a setting kept in the
// link, "copy link" works with and without the clipboard API, the busbw export is the chart
// on screen, "How is this computed" words busbw by the algorithm NCCL chose, and every embed
// at 400/800/1400 px keeps its title, axis titles, legend and caption visible and unclipped
// (getBBox inside each svg). Screenshots at 400, 800, 1400 px and a phone, light and dark,
// go to e2e/out/charts-*.png.
//
//   node e2e/charts.mjs            (DIST=path to serve another build)

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checker, assert } from './static-server.mjs';
import { setUp, newPage as openPage, OUT as out } from './run.mjs';
const { check, summary } = checker();

// Links made with `fabricscope link` (format v1): one DGX H100 node; 2 nodes.
const ONE_NODE = 'v1.eyJuIjoxfQ';
const TWO_NODES = 'v1.eyJuIjoyfQ';

/** Every text of every svg in the page that leaves the viewport of the svg holding it. */
function clippedTexts() {
  const bad = [];
  for (const t of document.querySelectorAll('svg text')) {
    const svg = t.ownerSVGElement;
    const w = Number(svg.getAttribute('width'));
    const h = Number(svg.getAttribute('height'));
    const b = t.getBBox();
    if (b.width === 0) continue;
    if (b.x < -1 || b.y < -1 || b.x + b.width > w + 1 || b.y + b.height > h + 1) {
      bad.push(`${JSON.stringify(t.textContent)} ${Math.round(b.x)},${Math.round(b.y)} ${Math.round(b.width)}x${Math.round(b.height)} in ${w}x${h}`);
    }
  }
  return bad;
}

/** Legend texts and axis titles that overlap the plot rectangle of their svg. */
function textsOnPlot() {
  const bad = [];
  for (const plot of document.querySelectorAll('svg [data-role=plot]')) {
    const svg = plot.ownerSVGElement;
    const p = { x: +plot.getAttribute('x'), y: +plot.getAttribute('y'), w: +plot.getAttribute('width'), h: +plot.getAttribute('height') };
    for (const t of svg.querySelectorAll('text')) {
      if (t.getAttribute('data-role') === 'in-plot' || t.ownerSVGElement !== svg) continue;
      const b = t.getBBox();
      const overlap = b.x < p.x + p.w - 1 && p.x < b.x + b.width - 1 && b.y < p.y + p.h - 1 && p.y < b.y + b.height - 1;
      if (overlap) bad.push(JSON.stringify(t.textContent));
    }
  }
  return bad;
}

async function main() {
  const { server, base, browser, close } = await setUp();
  const newPage = (opts = {}) => openPage(browser, opts);
  const explorer = async (page, link = 'v1.e30') => {
    // A new document each time: a fragment-only change would not reload the app.
    await page.goto('about:blank');
    await page.goto(`${base}#s=${link}`, { waitUntil: 'load' });
    await page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
  };
  try {
    await check('default view: linear busbw over 1 MiB-16 GiB, the domain/cluster gap is wide; log view one click away', async () => {
      const { page, problems } = await newPage();
      await explorer(page);
      const info = () =>
        page.evaluate(() => {
          const svg = document.querySelector('[data-testid=chart] svg');
          const texts = [...svg.querySelectorAll('text')].map((t) => t.textContent);
          // The filled dots at the headline size, one per series.
          const dots = [...svg.querySelectorAll('circle[r="5"]')].filter((c) => c.getAttribute('fill') !== 'none').map((c) => +c.getAttribute('cy'));
          return { texts, dots, plotH: +svg.querySelector('[data-role=plot]').getAttribute('height') };
        });
      const lin = await info();
      assert(lin.texts.includes('busbw, GB/s per direction') && lin.texts.includes('1M') && !lin.texts.includes('8B'), `linear, bandwidth-bound: ${lin.texts}`);
      assert(lin.dots.length === 2, `a dot per series at 1 GiB: ${lin.dots}`);
      const gap = Math.abs(lin.dots[0] - lin.dots[1]);
      assert(gap >= 0.1 * lin.plotH, `NVLink vs whole cluster at 1 GiB are ${gap.toFixed(1)} px apart on a ${lin.plotH} px plot`);
      await page.click('[data-testid=axis-log]');
      await page.click('[data-testid=sizes-all]');
      await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=chart] svg text')].some((t) => t.textContent === '8B'));
      const log = await info();
      assert(log.texts.includes('busbw, GB/s per direction (log scale)'), `log axis titled: ${log.texts}`);
      const logGap = Math.abs(log.dots[0] - log.dots[1]);
      assert(logGap < gap, `the log view squeezes the gap (${logGap.toFixed(1)} vs ${gap.toFixed(1)} px)`);
      // The choice is part of the link.
      await page.waitForFunction(() => location.hash.length > 10, null, { timeout: 3000 });
      const hash = await page.evaluate(() => location.hash);
      const json = JSON.parse(Buffer.from(hash.slice('#s=v1.'.length), 'base64url').toString());
      assert(json.ya === 'log' && json.sz === 'all', `link keeps the view: ${JSON.stringify(json)}`);
      assert(problems.length === 0, problems.join('\n'));
    });

    await check('cursor: arrow keys and the pointer read exact values into an aria-live region', async () => {
      const { page, problems } = await newPage();
      await explorer(page);
      const live = await page.getAttribute('[data-testid=readout]', 'aria-live');
      assert(live === 'polite', `readout is aria-live: ${live}`);
      await page.focus('[data-testid=chart-cursor]');
      const atKey = await page.textContent('[data-testid=readout]');
      assert(/^1 GiB — inside one domain, 8 GPUs: \d+ GB\/s busbw \((90%: [\d.]+-[\d.]+|not validated); \w+ \w+, [\d.]+ [mµ]?s\); whole cluster, 32 GPUs: \d+ GB\/s busbw/.test(atKey), `focus reads the headline size with its 90% interval: ${atKey}`);
      await page.keyboard.press('ArrowRight');
      const next = await page.textContent('[data-testid=readout]');
      assert(next.startsWith('2 GiB — '), `ArrowRight moves to 2 GiB: ${next}`);
      // The value read out is the model's, as the key numbers show it at that size.
      await page.keyboard.press('End');
      assert((await page.textContent('[data-testid=readout]')).startsWith('16 GiB — '), 'End goes to the largest size');
      const line = await page.evaluate(() => getComputedStyle(document.querySelector('.crosshair')).display);
      assert(line === 'block', `crosshair shown: ${line}`);
      const box = await page.locator('[data-testid=chart-cursor]').boundingBox();
      await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.6);
      const hover = await page.textContent('[data-testid=readout]');
      assert(/^\d+ [KMG]iB — /.test(hover) && !hover.startsWith('16 GiB'), `hover reads the size under the pointer: ${hover}`);
      assert(problems.length === 0, problems.join('\n'));
    });

    await check('headline size is a setting: 64 MiB changes the key numbers, the formula and the link', async () => {
      const { page, problems } = await newPage();
      await explorer(page);
      const before = await page.getAttribute('[data-testid=busbw-value]', 'data-value');
      await page.selectOption('[data-testid=key-size]', String(64 << 20));
      await page.waitForFunction(() => document.querySelector('[data-testid=busbw] .stat-label')?.textContent.includes('64 MiB'));
      const after = await page.getAttribute('[data-testid=busbw-value]', 'data-value');
      assert(Number(after) > 0 && after !== before, `busbw at 64 MiB ${after} vs 1 GiB ${before}`);
      const f = await page.textContent('[data-testid=formula]');
      assert(f.includes('AllReduce of 64 MiB') && f.includes('67108864'), 'formula follows the size');
      await page.waitForFunction(() => location.hash.includes('s=v1.') && location.hash.length > 12, null, { timeout: 3000 });
      await page.reload({ waitUntil: 'load' });
      await page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
      const kept = await page.textContent('[data-testid=busbw] .stat-label');
      assert(kept.includes('64 MiB'), `the link keeps the size: ${kept}`);
      assert(problems.length === 0, problems.join('\n'));
    });

    await check('copy link: the clipboard holds the scenario link; without the API the text is selected', async () => {
      const { ctx, page, problems } = await newPage();
      await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
      await explorer(page, TWO_NODES);
      await page.click('[data-testid=copy-link]');
      await page.waitForFunction(() => document.querySelector('.export-note')?.textContent.includes('copied'), null, { timeout: 3000 });
      const clip = await page.evaluate(() => navigator.clipboard.readText());
      const shown = await page.inputValue('[data-testid=share-link]');
      assert(clip === shown && clip.startsWith(`${base}#s=v1.`), `clipboard ${clip} vs shown ${shown}`);
      const old = await newPage();
      await old.page.addInitScript(() => Object.defineProperty(navigator, 'clipboard', { value: undefined }));
      await explorer(old.page, TWO_NODES);
      await old.page.click('[data-testid=copy-link]');
      await old.page.waitForSelector('.export-note', { timeout: 3000 });
      const sel = await old.page.evaluate(() => {
        const i = document.activeElement;
        return { id: i?.id, selected: i ? i.value.slice(i.selectionStart, i.selectionEnd) : '' };
      });
      assert(sel.id === 'share-link' && sel.selected.startsWith(`${base}#s=v1.`), `fallback selects the link: ${JSON.stringify(sel)}`);
      assert(problems.length === 0 && old.problems.length === 0, [...problems, ...old.problems].join('\n'));
    });

    await check('the busbw export is the chart on screen (same curves, view and title)', async () => {
      const { page, problems } = await newPage({ acceptDownloads: true });
      await explorer(page, TWO_NODES);
      await page.click('[data-testid=axis-log]');
      await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=chart] svg text')].some((t) => t.textContent.includes('(log scale)')));
      const screen = await page.evaluate(() => [...document.querySelectorAll('[data-testid=chart] svg polyline')].map((p) => p.getAttribute('points')));
      const [d] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-busbw-svg]')]);
      const svg = (await readFile(await d.path())).toString();
      const exported = [...svg.matchAll(/<polyline[^>]* points="([^"]*)"/g)].map((m) => m[1]);
      assert(screen.length === 2 && JSON.stringify(exported) === JSON.stringify(screen), `same curves: ${exported.length} vs ${screen.length}`);
      for (const t of ['AllReduce busbw vs message size', 'inside one domain, 8 GPUs', 'whole cluster, 16 GPUs', '(log scale)', '2 nodes × 8 ']) {
        assert(svg.includes(t), `export says ${t}`);
      }
      assert(problems.length === 0, problems.join('\n'));
    });

    await check('"How is this computed" words busbw by the algorithm NCCL chose', async () => {
      const { page, problems } = await newPage();
      await explorer(page);
      const ring = await page.textContent('[data-testid=formula]');
      assert(!ring.includes("is what each GPU's links carry"), 'the old wording is gone');
      const r = await page.textContent('[data-testid=reading-busbw]');
      assert(r.includes("nccl-tests' normalisation") && r.includes('8 × 50 = 400 GB/s') && r.includes('Limited by the NICs'), r);
      await explorer(page, ONE_NODE);
      await page.waitForFunction(() => document.querySelector('[data-testid=algorithm]')?.textContent === 'NVLS');
      const a = await page.textContent('[data-testid=reading-algorithm]');
      assert(a.includes('NVSwitch itself adds') && a.includes('exceed the link rate (450 GB/s'), a);
      const choice = await page.textContent('[data-testid=choice]');
      assert(choice.includes('NVLS') && !/limited by the NICs/.test(choice), `key numbers: ${choice}`);
      await explorer(page, TWO_NODES);
      await page.waitForFunction(() => document.querySelector('[data-testid=algorithm]')?.textContent === 'NVLSTree');
      const sc = await page.textContent('[data-testid=reading-scaling]');
      assert(sc.includes('higher') && sc.includes('NCCL switches algorithm'), sc);
      assert(problems.length === 0, problems.join('\n'));
    });

    for (const [w, h] of [[400, 225], [800, 450], [1400, 788]]) {
      await check(`embeds at ${w}x${h}: title, axis titles, legend and the whole caption visible, nothing clipped`, async () => {
        const { page, problems } = await newPage({ viewport: { width: w, height: h } });
        for (const id of ['busbw', 'hierarchy', 'topology', 'step', 'mfu', 'memory']) {
          await page.goto(`${base}?embed=${id}#s=${TWO_NODES}`, { waitUntil: 'load' });
          await page.waitForSelector('[data-testid=embed-chart] svg', { timeout: 20000 });
          const r = await page.evaluate(
            ({ clip, onPlot }) => {
              const cap = document.querySelector('.embed-caption');
              const foot = document.querySelector('.embed-foot');
              const c = foot.getBoundingClientRect();
              // A chart taller than a small frame scrolls at the frame's width (issue 37): its
              // box, not the drawing, must stay inside the frame.
              const box = document.querySelector('[data-testid=embed-chart]');
              const scrolled = box.getAttribute('data-scroll') === 'true';
              const svg = (scrolled ? box : box.querySelector('svg')).getBoundingClientRect();
              const texts = [...document.querySelectorAll('[data-testid=embed-chart] svg text')];
              return {
                caption: cap.textContent,
                capInside: c.bottom <= innerHeight + 0.5 && c.right <= innerWidth + 0.5 && foot.scrollWidth <= foot.clientWidth + 1 && foot.scrollHeight <= foot.clientHeight + 1,
                svgInside: svg.bottom <= innerHeight + 0.5 && svg.right <= innerWidth + 0.5 && svg.height > 60,
                scrolled,
                // Type drawn at 3/4 of its size or more (a tall chart squeezed into the frame was under half).
                smallestType: Math.min(...[...box.querySelectorAll('svg text')].map((t) => t.getBoundingClientRect().height).filter((x) => x > 0)),
                clipped: new Function(`return (${clip})()`)(),
                onPlot: new Function(`return (${onPlot})()`)(),
                legend: texts.filter((t) => t.getAttribute('data-role') === 'legend').map((t) => t.textContent),
                texts: texts.map((t) => t.textContent),
              };
            },
            { clip: clippedTexts.toString(), onPlot: textsOnPlot.toString() },
          );
          assert(r.caption.includes('2 nodes × 8 ') && r.caption.includes('NCCL 2.27.5'), `${id}: caption ${r.caption}`);
          assert(r.capInside, `${id}: the caption is cut: ${r.caption}`);
          assert(r.svgInside, `${id}: the chart leaves the frame`);
          assert(r.smallestType >= 7, `${id} at ${w}x${h}${r.scrolled ? ' (scrolled)' : ''}: type ${r.smallestType.toFixed(1)} px high`);
          assert(r.clipped.length === 0, `${id}: clipped texts: ${r.clipped.join('; ')}`);
          assert(r.onPlot.length === 0, `${id}: texts on the plot: ${r.onPlot.join('; ')}`);
          if (id === 'busbw') {
            assert(r.caption.startsWith('AllReduce busbw vs message size'), `title in the footer: ${r.caption}`);
            assert(r.texts.includes('busbw, GB/s per direction') && r.texts.some((t) => t.startsWith('message size')), `axis titles: ${r.texts}`);
            assert(r.legend.length === 2, `legend: ${r.legend}`);
          }
          // The training charts' caption carries the step's 90% interval (issue 37), as the CLI's `train` prints it.
          if (id === 'step' || id === 'mfu') assert(/, step 90%: [\d.]+-[\d.]+ s$/.test(r.caption), `${id}: the step's band in the caption: ${r.caption}`);
          if (id === 'busbw' || id === 'step') await page.screenshot({ path: join(out, `charts-embed-${id}-${w}.png`) });
        }
        assert(problems.length === 0, problems.join('\n'));
      });
    }

    for (const dark of [false, true]) {
      const theme = dark ? 'dark' : 'light';
      await check(`explorer at 400, 800, 1400 px and a 390 px phone (${theme}): charts unclipped, screenshots`, async () => {
        for (const [w, h] of [[400, 900], [800, 900], [1400, 900], [390, 844]]) {
          const { page, problems } = await newPage({ viewport: { width: w, height: h }, colorScheme: theme, deviceScaleFactor: w === 390 ? 2 : 1 });
          await explorer(page, TWO_NODES);
          await page.waitForSelector('[data-testid=step-chart] svg', { timeout: 30000 });
          const bad = await page.evaluate(({ clip, onPlot }) => [...new Function(`return (${clip})()`)(), ...new Function(`return (${onPlot})()`)()], { clip: clippedTexts.toString(), onPlot: textsOnPlot.toString() });
          // No chart is cropped by the box the page lays it out in.
          const cropped = await page.evaluate(() =>
            [...document.querySelectorAll('.chart-svg > svg')]
              .filter((svg) => {
                const a = svg.getBoundingClientRect();
                const b = svg.parentElement.getBoundingClientRect();
                return a.bottom > b.bottom + 1 || a.right > b.right + 1;
              })
              .map((svg) => svg.closest('[data-testid]')?.getAttribute('data-testid')),
          );
          assert(cropped.length === 0, `${w} px: charts cropped by their box: ${cropped}`);
          assert(bad.length === 0, `${w} px: ${bad.join('; ')}`);
          await page.locator('[data-testid=chart]').screenshot({ path: join(out, `charts-busbw-${w}-${theme}.png`) });
          if (w === 390) await page.screenshot({ path: join(out, `charts-phone-${theme}.png`), fullPage: true });
          assert(problems.length === 0, problems.join('\n'));
          await page.context().close();
        }
      });
    }
  } finally {
    await close();
  }
  if (!summary('charts e2e')) process.exit(1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
