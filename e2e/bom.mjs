// Bill of materials and right-sizer panels (issue 12) on compare.html, against a release build (dist/):
// - the DGX H100 SuperPOD preset (128 nodes, 8x NDR) lists 32 leaf + 16 spine switches, as
//   NVIDIA's SuperPOD reference architecture does, 128 DGX H100 at 10,200 W, and its CSV;
// - the right-sizer runs on request for 1024 GPUs in slices: no main-thread task over 50 ms,
//   done within a few seconds, a Pareto chart with the pick ringed; a cluster change retires
//   the answer;
// - the price book editor (issue 12): a bad number shows the model's message beside its box
//   and keeps the book; prices typed for the SuperPOD's four items price it (128 DGX H100,
//   48 QM9700, 2048 twin-port modules and 2048 fibers at test prices: $41,990,400, $41,006
//   per GPU, network 8.6%), and the delta table's cost and tokens/s per million USD
//   rows; a price-book file imported turns the right-sizer's answer to
//   cost without a new run; the book survives a reload (localStorage) and travels in the
//   copied link (a fresh browser opening it shows the cost); Clear empties it; screenshots of
//   the editor with a refused entry at 1400 px and 390 px go to e2e/out/prices-*.png;
// - no console error on the way.
//
//   node e2e/bom.mjs            (DIST=path to test another build)

import { readFile, writeFile, mkdtemp, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checker, assert, watch, longestTask } from './static-server.mjs';
import { setUp, newPage, OUT } from './run.mjs';

async function main() {
  const { server, browser, close } = await setUp();
  const { check, summary } = checker();
  const { page, problems } = await newPage(browser, { serviceWorkers: 'block', acceptDownloads: true });
  try {
    await page.goto(server.origin + '/compare.html', { waitUntil: 'load' });
    await page.waitForSelector('[data-preset=dgx-h100-superpod]', { timeout: 15000 });
    await page.click('[data-preset=dgx-h100-superpod]');

    await check('SuperPOD preset: 32 leaf + 16 spine switches, DGX H100 at 10.2 kW, CSV download', async () => {
      await page.waitForFunction(() => document.querySelector('[data-testid=bom-counts]')?.textContent.includes('32 leaf + 16 spine'), null, { timeout: 10000 });
      const counts = await page.textContent('[data-testid=bom-counts]');
      assert(counts.startsWith('48 switches') && counts.includes('1,024 NICs'), counts);
      const row = await page.locator('[data-testid=bom] tr', { hasText: 'DGX H100' }).innerText();
      assert(/128\s+10,200\s+1,306/.test(row), `DGX row: ${row}`);
      const [d] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), page.click('[data-testid=bom-csv]')]);
      const csv = (await readFile(await d.path())).toString().split('\r\n');
      assert(d.suggestedFilename() === 'fabricscope-bom.csv' && csv[0].startsWith('group,item,name,count,scope,unit_power_w'), csv[0]);
      assert(csv.some((l) => l.startsWith('leaf,qm9700,') && l.includes(',32,')), 'CSV has the 32 leaf switches');
    });

    await check('right-sizer: 1024 GPUs in slices (no task over 50 ms); only fully powered options ranked on power, a pick named', async () => {
      await page.evaluate(() => {
        window.__long = [];
        new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__long.push(e.duration))).observe({ type: 'longtask' });
      });
      const t0 = Date.now();
      await page.click('[data-testid=rightsize-run]');
      await page.waitForSelector('[data-testid=rightsize-systems]', { timeout: 30000 });
      const ms = Date.now() - t0;
      const long = await page.evaluate(() => window.__long);
      longestTask('the right-sizer', long);
      // QM9700 has a published maximum, SN5600 and generic servers do not: the NDR DGX options
      // are ranked by power, the rest are not, and the summary says how many.
      const systems = await page.textContent('[data-testid=rightsize-systems]');
      const m = /(\d+) of (\d+) options ranked by power/.exec(systems);
      assert(m && +m[1] > 0 && +m[1] < +m[2], `some, not all, options ranked by power: ${systems}`);
      const pick = await page.textContent('[data-testid=rightsize-pick]');
      assert(pick.includes('H100 8-GPU NVSwitch') && pick.includes('NDR'), `the pick is a powered NDR option: ${pick}`);
      console.log(`     right-sized in ${ms} ms`);
    });

    // Test inputs, not prices anyone quoted.
    const PRICES = { 'dgx-h100': 300000, qm9700: 30000, 'mma4z00-ns': 1000, 'fiber-mpo-mm': 50 };
    const box = (item, field) => `[data-testid=prices] input[data-item="${item}"][data-f="${field}"]`;
    const power = () => page.textContent('[data-testid=bom-power]');

    await check('price editor: a bad number is refused beside its box, the book kept', async () => {
      await page.waitForSelector(box('qm9700', 'usd'));
      await page.fill(box('qm9700', 'usd'), 'abc');
      await page.press(box('qm9700', 'usd'), 'Enter');
      const err = await page.textContent('#price-qm9700-usd-e');
      assert(err.includes('usd is US dollars per unit') && err.includes("'abc'"), `message: ${err}`);
      assert((await page.getAttribute(box('qm9700', 'usd'), 'aria-invalid')) === 'true', 'marked invalid');
      assert((await power()).includes('not priced'), await power());
      assert((await page.evaluate(() => localStorage.getItem('fabricscope-prices'))) === null, 'nothing saved');
      // Issue 20: an absurd amount (1e308 printed "inf") is refused where typed, naming the bound.
      await page.fill(box('qm9700', 'usd'), '1e308');
      await page.press(box('qm9700', 'usd'), 'Enter');
      const huge = await page.textContent('#price-qm9700-usd-e');
      assert(huge.includes('from 0 to 1,000,000,000') && huge.includes("'1e308'"), `message: ${huge}`);
      assert(!(await power()).includes('inf'), await power());
      await page.fill(box('qm9700', 'usd'), '');
      await page.press(box('qm9700', 'usd'), 'Enter');
    });

    await check('a link with a price of 1e308 is brought down to the bound with a note (no "inf")', async () => {
      const c = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const p = await c.newPage();
      const json = JSON.stringify({ prices: [{ item: 'qm9700', usd: 1e308, source: 'absurd', date: '' }] });
      const link = 'v1.' + Buffer.from(json).toString('base64url');
      await p.goto(`${server.origin}/compare.html#s=${link}`, { waitUntil: 'load' });
      await p.waitForSelector('[data-testid=prices]', { timeout: 20000 });
      const text = await p.textContent('body');
      assert(text.includes('usd 1e308 is over the bound of 1,000,000,000; 1,000,000,000 used'), 'the note names the clamp');
      assert(!/\binf\b/i.test(await p.textContent('[data-testid=bom-power]')), await p.textContent('[data-testid=bom-power]'));
      await c.close();
    });

    await check('price editor: prices typed for every item price the bill (cost, per GPU, network share)', async () => {
      for (const [item, usd] of Object.entries(PRICES)) {
        await page.fill(box(item, 'usd'), String(usd));
        await page.press(box(item, 'usd'), 'Tab');
      }
      await page.fill(box('qm9700', 'source'), 'test input');
      await page.press(box('qm9700', 'source'), 'Tab');
      // Focus moved on with Tab: the edit did not redraw the boxes.
      assert((await page.evaluate(() => document.activeElement?.dataset.f)) === 'date', 'focus kept on the next box');
      assert((await page.textContent('#price-qm9700-usd-e')) === '', 'the message goes once the entry is good');
      await page.waitForFunction(() => document.querySelector('[data-testid=bom-power]')?.textContent.includes(' per GPU, network'), null, { timeout: 5000 });
      const p = await power();
      assert(p.includes('$41,990,400') && p.includes('$41,006 per GPU') && p.includes('network 8.6%'), p);
      assert((await page.textContent('[data-testid=price-status]')).startsWith('4 of 4 items priced'), 'status line');
      // The delta table prices every design from the book: cost and tokens/s per million USD.
      const priced = (label) => [...document.querySelectorAll('[data-testid=delta] tbody tr')].some((tr) => tr.querySelector('th')?.textContent.startsWith(label) && [...tr.querySelectorAll('td')].some((td) => /\d/.test(td.textContent)));
      await page.waitForFunction(priced, 'cost', { timeout: 15000 });
      await page.waitForFunction(priced, 'tokens/s per million USD', { timeout: 15000 });
      const saved = JSON.parse(await page.evaluate(() => localStorage.getItem('fabricscope-prices')));
      assert(saved.length === 4 && saved.some((e) => e.item === 'qm9700' && e.usd === 30000 && e.source === 'test input'), JSON.stringify(saved));
      // The node slider moves the counts; the boxes (and what they hold) stay as they are.
      const count = (item) => page.textContent(`[data-testid=prices] tr[data-item="${item}"] td[data-label=Count]`);
      const drag = (v) => page.evaluate((v) => { const s = document.querySelector('#nodes-slider'); s.value = String(v); s.dispatchEvent(new Event('input', { bubbles: true })); }, v);
      const before = await page.$(box('dgx-h100', 'usd'));
      await drag(6);
      await page.waitForFunction(() => document.querySelector('[data-testid=prices] tr[data-item="dgx-h100"] td[data-label=Count]')?.textContent === '64', null, { timeout: 5000 });
      assert((await count('qm9700')) === '24', `64 nodes: 16 leaf + 8 spine switches, not ${await count('qm9700')}`);
      assert(await before.evaluate((el) => el.isConnected && el.value === '300000'), 'the price boxes were not redrawn');
      await drag(7);
      await page.waitForFunction(() => document.querySelector('[data-testid=prices] tr[data-item="dgx-h100"] td[data-label=Count]')?.textContent === '128', null, { timeout: 5000 });
      assert((await count('qm9700')) === '48', `128 nodes: 48 switches, not ${await count('qm9700')}`);
    });

    await check("a price-book file imported re-ranks the right-sizer's answer by cost, without a new run", async () => {
      // Every part an option of the user's own system (8-GPU DGX H100) may use.
      const items = ['dgx-h100', 'qm9700', 'sn5600', 'q3400', 'mma4z00-ns', 'mma4z00-ns400', 'mms4x00-nm', 'fiber-mpo-mm', 'fiber-mpo-sm', 'dac', 'optic', 'fiber', 'connectx-8-xdr', 'connectx-8-800gbe', 'connectx-7-ndr', 'connectx-7-400gbe'];
      const file = join(await mkdtemp(join(tmpdir(), 'fs-prices-')), 'book.json');
      await writeFile(file, JSON.stringify(items.map((item) => ({ item, usd: PRICES[item] ?? 1000, source: 'test input', date: '2026-11-30' }))));
      await page.click('[data-testid=rightsize-run]');
      await page.waitForSelector('[data-testid=rightsize-systems]', { timeout: 30000 });
      await page.setInputFiles('[data-testid=price-import]', file);
      await page.waitForFunction(() => document.querySelector('[data-testid=rightsize-systems]')?.textContent.includes('ranked by cost'), null, { timeout: 5000 });
      const sys = await page.textContent('[data-testid=rightsize-systems]');
      assert(sys.includes('H100 8-GPU NVSwitch') && sys.includes('H100 4-GPU NVLink'), `systems with their domain sizes: ${sys}`);
      // Ranked by cost: the Pareto chart with one point per ranked option and the pick labelled.
      await page.waitForSelector('[data-testid=rightsize-pick]', { timeout: 5000 });
      const svg = await page.locator('[data-testid=rightsize] svg').innerHTML();
      assert((svg.match(/<circle/g) ?? []).length > 10, 'one point per ranked option');
      assert((await page.textContent('[data-testid=rightsize] svg')).includes('pick: '), 'the pick is labelled');
      assert((await page.textContent('[data-testid=price-note]')).startsWith(`Imported ${items.length} prices`), 'import note');
      assert((await page.inputValue(box('qm9700', 'usd'))) === '30000', 'the boxes show the imported book');
    });

    await check('the book survives a reload and travels in the copied link', async () => {
      // The link follows 300 ms after the last change: wait for the imported book in it.
      const linked = () => {
        const s = document.querySelector('[data-testid=share-link]').value.split('#s=v1.')[1].split('&')[0];
        return atob(s.replace(/-/g, '+').replace(/_/g, '/')).includes('"connectx-7-ndr"');
      };
      await page.waitForFunction(linked, null, { timeout: 5000 });
      const copied = await page.inputValue('[data-testid=share-link]');
      await page.goto('about:blank');
      await page.goto(server.origin + '/compare.html', { waitUntil: 'load' });
      await page.waitForSelector(box('qm9700', 'usd'), { timeout: 15000 });
      assert((await page.inputValue(box('qm9700', 'usd'))) === '30000', 'restored from localStorage');
      // A fresh browser (no storage) opening the copied link gets the book from the link.
      const fresh = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 1400, height: 900 } });
      const p2 = await fresh.newPage();
      watch(p2, problems);
      await p2.goto(copied, { waitUntil: 'load' });
      await p2.waitForFunction(() => document.querySelector('[data-testid=bom-power]')?.textContent.includes(' per GPU, network'), null, { timeout: 15000 });
      const p = await p2.textContent('[data-testid=bom-power]');
      assert(p.includes('$41,990,400') && p.includes('$41,006 per GPU'), `priced from the link: ${p}`);
      assert(copied.includes('#s=v1.'), copied);
      await fresh.close();
    });

    await check('screenshots: the price book at 1400 px and a phone, with a refused entry', async () => {
      const out = OUT;
      await mkdir(out, { recursive: true });
      for (const w of [1400, 390]) {
        await page.setViewportSize({ width: w, height: 900 });
        await page.fill(box('mma4z00-ns', 'power_w'), '-3');
        await page.press(box('mma4z00-ns', 'power_w'), 'Enter');
        assert((await page.textContent('#price-mma4z00-ns-power_w-e')).includes('power_w is watts per unit'), 'message beside the box');
        await page.locator('[data-testid=prices]').screenshot({ path: join(out, `prices-${w}.png`) });
        await page.fill(box('mma4z00-ns', 'power_w'), '');
        await page.press(box('mma4z00-ns', 'power_w'), 'Enter');
      }
      await page.setViewportSize({ width: 1400, height: 900 });
    });

    await check('Clear empties the book', async () => {
      await page.click('[data-testid=price-clear]');
      await page.waitForFunction(() => document.querySelector('[data-testid=bom-power]')?.textContent.includes('not priced'), null, { timeout: 5000 });
      assert((await page.inputValue(box('qm9700', 'usd'))) === '', 'boxes emptied');
      assert((await page.evaluate(() => localStorage.getItem('fabricscope-prices'))) === null, 'saved copy removed');
    });

    await check('a cluster change retires the answer', async () => {
      await page.click('[data-testid=rightsize-run]');
      await page.waitForSelector('[data-testid=rightsize-systems]', { timeout: 30000 });
      await page.click('[data-preset=h100-roce]');
      await page.waitForFunction(() => !document.querySelector('[data-testid=rightsize-none]'), null, { timeout: 10000 });
    });

    await check('no console error', async () => assert(problems.length === 0, problems.join('\n')));
  } finally {
    await close();
  }
  process.exit(summary('e2e bom') ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
