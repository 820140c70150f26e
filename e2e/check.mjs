// "Check a real cluster" (check.html, its own page and wasm) against a release build (dist/),
// opened with a scenario link: a real published nccl-tests log (validation/logs/) pasted,
// dropped or opened as a file is read in the page with no request leaving it;
// the fields read and assumed, the verdict (healthy; NVLS not in effect), the per-size table
// and the overlay chart (measured dots over the expected curve) show; text that is not
// nccl-tests output says so; CSV and SVG exports download; the scenario JSON keeps every
// point and imports them back; the link keeps the plateau only; a NIC picked on the page is
// the one checked against; the explorer has no check panel and links here with its design;
// fields inferred from the log's numbers and assumed from the design are labelled so; a bad
// paste clears the old verdict; 32 per-node runs make a link under 8 KB that reopens with
// the design (the note says what it left out); issue 37: the pickers show the hardware a
// GB200 or EFA log is judged on, a NIC picked applies at once and is "given" as the CLI's
// --nic is, a pick the log contradicts is used and the log's value said; a 4 MB verbose log is read in the page's Web
// Worker with progress and no long task; a 300 KB line of launcher prefixes is read in
// slices without a long task.
// Screenshots (light, dark, phone) go to e2e/out/check-*.png.
//
//   node e2e/check.mjs            (DIST=path to serve another build)

import { chromium } from 'playwright-core';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, CHROMIUM_ARGS, checker, assert, watch, budget, longestTask, LONG_TASK_MS, FREEZE_MS, cli } from './static-server.mjs';

/** The browser's own lazy fetch of the page's icon, which may land at any time and carries
 * nothing: the one request the "nothing requested" checks allow. */
const FAVICON = /\/favicon[^/]*\.svg$/;
const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.env.DIST ?? join(here, '..', 'dist'));
const logs = join(here, '..', 'validation', 'logs');
const out = join(here, 'out');
const { check, summary } = checker();
const NODES2 = 'v1.eyJuIjoyfQ';

async function main() {
  assert((await stat(join(dist, 'check.html')).catch(() => null)) !== null, `no check.html in ${dist}: run bash scripts/build.sh first`);
  await mkdir(out, { recursive: true });
  const healthy = (await readFile(join(logs, 'h100-1node-all-gather-ring.txt'))).toString();
  const nvls = (await readFile(join(logs, 'h100-1node-all-reduce-nvls.txt'))).toString();
  // A synthetic rccl-tests log of one MI300X node (crates/model/tests/fixtures/README.md).
  const fixtures = join(here, '..', 'crates', 'check', 'tests', 'fixtures');
  const amd = (await readFile(join(fixtures, 'mi300x-1node-rccl-all-reduce.txt'))).toString();
  // Synthetic GB200 NVL72 and p5 EFA logs (fixtures/README.md): validation/logs/ has no
  // published log of either.
  const gb200Path = join(fixtures, 'gb200-20rack-last-rank-all-reduce.txt');
  const efaPath = join(fixtures, 'p5-efa-2node-all-reduce.txt');
  const gb200 = (await readFile(gb200Path)).toString();
  const efa = (await readFile(efaPath)).toString();
  const server = await startServer({ root: dist });
  const base = `${server.origin}/`;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  const newPage = async (opts = {}) => {
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true, ...opts });
    const page = await ctx.newPage();
    const problems = watch(page, []);
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    return { ctx, page, problems, requests };
  };
  // 2 nodes of the default cluster (8 x H100, InfiniBand NDR), from `fabricscope link`.
  const open = async (page, link = NODES2) => {
    await page.goto('about:blank');
    await page.goto(`${base}check.html#s=${link}`, { waitUntil: 'load' });
    await page.waitForSelector('[data-testid=check-log]', { timeout: 15000 });
  };
  const paste = async (page, text) => {
    await page.fill('[data-testid=check-log]', text);
    await page.click('[data-testid=check-run]');
  };
  const rows = (page) => page.locator('[data-testid=check-table] tbody tr').count();
  try {
    await check('a healthy node, pasted: read in the page, fields read and assumed, healthy, table and overlay', async () => {
      const { page, problems, requests } = await newPage();
      await open(page);
      const before = requests.length;
      await paste(page, healthy);
      await page.waitForSelector('[data-testid=check-status]');
      const status = await page.textContent('[data-testid=check-status]');
      assert(status.startsWith('Healthy'), status);
      const fields = await page.textContent('[data-testid=check-fields]');
      for (const t of ['gpu: H100-SXM5 80GB (read from the log)', 'nodes: 1 (read from the log)', 'gpus_per_node: 8 (read from the log)', 'nic: 8 x InfiniBand NDR 400G (assumed)']) {
        assert(fields.includes(t), `fields say ${t}: ${fields}`);
      }
      const first = await page.textContent('[data-testid=check-verdict] li');
      // The plateau quoted is one row (the median of the rows from 64 MiB), its percentage that row's.
      assert(first.startsWith('healthy') && first.includes('278.45 GB/s measured vs 285.31 GB/s expected at 64M (98% of expected'), first);
      assert((await rows(page)) === 27, `27 sizes with data: ${await rows(page)}`);
      const dots = await page.locator('[data-testid=check-chart] svg circle').count();
      assert(dots >= 27, `a dot per size and the legend's: ${dots}`);
      const legend = await page.evaluate(() => [...document.querySelectorAll('[data-testid=check-chart] svg text')].map((t) => t.textContent));
      assert(legend.includes('AllGather measured') && legend.includes('AllGather expected'), legend.join('|'));
      const sent = requests.slice(before).filter((u) => !FAVICON.test(u));
      assert(sent.length === 0, `nothing requested while checking: ${sent}`);
      await page.screenshot({ path: join(out, 'check-healthy-1400-light.png'), fullPage: true });
      assert(problems.length === 0, problems.join('\n'));
      await page.context().close();
    });

    await check('the NVLS log is diagnosed: NVLS not in effect first, with its numbers and next step', async () => {
      const { page, problems } = await newPage({ colorScheme: 'dark' });
      await open(page);
      await paste(page, nvls);
      await page.waitForFunction(() => document.querySelector('[data-testid=check-status]')?.textContent.startsWith('Not healthy'));
      const first = await page.textContent('[data-testid=check-verdict] li');
      assert(first.startsWith('NVLS (NVLink SHARP) not in effect') && first.includes('363.78 GB/s vs 464.62 GB/s expected at 2G') && first.includes('NCCL_NVLS_ENABLE'), first);
      await page.screenshot({ path: join(out, 'check-nvls-1400-dark.png'), fullPage: true });
      assert(problems.length === 0, problems.join('\n'));
      await page.context().close();
    });

    await check('text that is not nccl-tests output says so; unread lines are listed with their numbers', async () => {
      const { page, problems } = await newPage();
      await open(page);
      await paste(page, 'hello\nthis is not a log');
      const note = await page.textContent('[data-testid=check-note]');
      assert(note.startsWith('not nccl-tests output'), note);
      await paste(page, `Job ID: 42\n${healthy}`);
      await page.waitForSelector('[data-testid=check-status]');
      const n2 = await page.textContent('[data-testid=check-note]');
      assert(n2.includes('1 line(s) not read') && n2.includes('line 1: Job ID: 42'), n2);
      assert(problems.length === 0, problems.join('\n'));
      await page.context().close();
    });

    await check('exports: CSV table, SVG overlay; the scenario JSON keeps every point and imports them; the link keeps the plateau', async () => {
      const { page, problems } = await newPage();
      await open(page);
      await paste(page, healthy);
      await page.waitForSelector('[data-testid=check-status]');
      const [c] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=check-csv]')]);
      const csv = (await readFile(await c.path())).toString().trim().split('\n');
      assert(csv.length === 28 && csv[27].startsWith('1,all_gather,8589934592,357.9,'), csv.slice(-1));
      const [s] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=check-svg]')]);
      const svg = (await readFile(await s.path())).toString();
      assert(svg.startsWith('<svg') && svg.includes('AllGather measured'), svg.slice(0, 80));
      const [j] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-json]')]);
      const json = JSON.parse((await readFile(await j.path())).toString());
      // Points are one string in the file: "bytes:time_us:busbw" per size.
      const points = json.measured?.[0]?.points?.split(' ') ?? [];
      assert(json.measured.length === 1 && points.length === 27 && points[26] === '8589934592:21001:357.9', `file keeps 27 points: ${points.slice(-1)}`);
      // The link (written 300 ms after the change) carries the plateau: 64 MiB to 8 GiB.
      // The link may keep the design only (as short as the one opened): wait for it to settle.
      await page.waitForFunction(() => location.hash.startsWith('#s=v1.'));
      await page.waitForTimeout(1000);
      const link = await page.evaluate(() => location.href);
      assert(link.startsWith(`${base}check.html#s=v1.`), `the link stays on check.html (not resolved against <base href="./">): ${link}`);
      const p2 = await browser.newContext({ viewport: { width: 1400, height: 900 } }).then((x) => x.newPage());
      await p2.goto(link, { waitUntil: 'load' });
      await p2.waitForSelector('[data-testid=check-table]', { timeout: 15000 });
      assert((await rows(p2)) === 8, `the link holds the plateau: ${await rows(p2)} rows`);
      await p2.context().close();
      // Import the file into a fresh page: every point comes back.
      const file = join(out, 'check-scenario.json');
      await writeFile(file, JSON.stringify(json));
      const fresh = await newPage();
      await open(fresh.page);
      await fresh.page.setInputFiles('[data-testid=import-json]', file);
      await fresh.page.waitForSelector('[data-testid=check-table]', { timeout: 15000 });
      assert((await rows(fresh.page)) === 27, `imported: ${await rows(fresh.page)} rows`);
      await page.click('[data-testid=check-clear]');
      assert((await page.locator('[data-testid=check-table]').count()) === 0, 'clear empties the panel');
      assert(problems.length === 0 && fresh.problems.length === 0, [...problems, ...fresh.problems].join('\n'));
      await page.context().close();
      await fresh.ctx.close();
    });

    await check('a dropped file and an opened file are read like a paste; a NIC picked on the page is the one checked against', async () => {
      const { page, problems, requests } = await newPage();
      await open(page);
      const before = requests.length;
      await page.evaluate((text) => {
        const dt = new DataTransfer();
        dt.items.add(new File([text], 'all_gather.txt', { type: 'text/plain' }));
        document.querySelector('[data-testid=check-log]').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      }, healthy);
      await page.waitForSelector('[data-testid=check-status]');
      assert((await rows(page)) === 27, `the dropped log's 27 sizes: ${await rows(page)}`);
      await page.click('[data-testid=check-clear]');
      const file = join(out, 'check-nvls.txt');
      await writeFile(file, nvls);
      await page.setInputFiles('[data-testid=check-file]', file);
      await page.waitForFunction(() => document.querySelector('[data-testid=check-status]')?.textContent.startsWith('Not healthy'));
      await page.selectOption('#nic-select', 'roce-400');
      await page.waitForFunction(() => document.querySelector('[data-testid=check-fields]')?.textContent.includes('RoCE'));
      const fields = await page.textContent('[data-testid=check-fields]');
      // Picked on the page: given, as the CLI says of --nic.
      assert(/nic: 8 x [^(]*RoCE[^(]*\(given\)/.test(fields), fields);
      // The log goes nowhere: no request after the page loaded (FAVICON aside).
      const sent = requests.slice(before).filter((u) => !FAVICON.test(u));
      assert(sent.length === 0, `nothing requested: ${sent}`);
      assert(problems.length === 0, problems.join('\n'));
      await page.context().close();
    });

    await check('labels: ranks and nodes inferred from busbw/algbw, the GPU assumed; the assumption is said first', async () => {
      const { page, problems } = await newPage();
      await open(page);
      // The NVLS log without its '#  Rank' lines: 8 ranks from busbw/algbw = 2(n-1)/n.
      await paste(page, nvls.split('\n').filter((l) => !l.includes('Rank ')).join('\n'));
      await page.waitForSelector('[data-testid=check-status]');
      const fields = await page.textContent('[data-testid=check-fields]');
      for (const t of ["ranks: 8 (inferred from the log's numbers)", "nodes: 1 (inferred from the log's numbers)", 'gpu: H100-SXM5 80GB (assumed)']) {
        assert(fields.includes(t), `fields say ${t}: ${fields}`);
      }
      assert((await page.locator('[data-testid=check-fields] [data-source=inferred]').count()) >= 2, 'inferred fields are marked');
      const status = await page.textContent('[data-testid=check-status]');
      assert(status.startsWith('Cannot judge'), status);
      const first = await page.textContent('[data-testid=check-verdict] li');
      assert(first.startsWith('assumed H100-SXM5 80GB: no GPU name in the log'), first);
      assert(problems.length === 0, problems.join('\n'));
      await page.context().close();
    });

    await check('an AMD log pasted: the MI300X read from the log, judged with RCCL, no NVIDIA advice', async () => {
      const { page, problems } = await newPage();
      await open(page);
      await paste(page, amd);
      await page.waitForSelector('[data-testid=check-status]');
      const fields = await page.textContent('[data-testid=check-fields]');
      for (const t of ['gpu: Instinct MI300X 192GB (read from the log)', 'library: RCCL (read from the log)']) {
        assert(fields.includes(t), `fields say ${t}: ${fields}`);
      }
      const judged = await page.textContent('[data-testid=judged-hardware]');
      for (const t of ['gpu: Instinct MI300X 192GB (read from the log)', "scale_up: Infinity Fabric xGMI mesh (8 GPUs) (inferred from the log's numbers)"]) {
        assert(judged.includes(t), `the design section says ${t}: ${judged}`);
      }
      const status = await page.textContent('[data-testid=check-status]');
      assert(status.startsWith('Healthy'), status);
      const verdict = await page.textContent('[data-testid=check-verdict]');
      for (const w of ['nvidia-smi', 'NVLink', 'NET/IB', 'GPUDirect']) assert(!verdict.includes(w), `${w} in ${verdict}`);
      await page.screenshot({ path: join(out, 'check-amd.png'), fullPage: true });
      assert(problems.length === 0, problems.join('\n'));
      await page.context().close();
    });

    await check('issue 37: a GB200 log sets the pickers to GB200; a NIC picked applies at once, "given" as the CLI says of --nic; a contradicting GPU pick is used and the log named', async () => {
      const { page, problems } = await newPage();
      await open(page);
      await paste(page, gb200);
      await page.waitForSelector('[data-testid=check-status]');
      const picked = () => page.evaluate(() => ['gpu-select', 'scale-up-select', 'nic-select'].map((id) => document.getElementById(id).value));
      let [gpu, fabric, nic] = await picked();
      assert(gpu === 'gb200' && fabric === 'nvl72' && nic === 'ib-ndr', `the pickers show the judged GB200 rack: ${gpu} ${fabric} ${nic}`);
      const judged = await page.textContent('[data-testid=judged-hardware]');
      assert(judged.includes('gpu: GB200 (Blackwell in NVL72) (read from the log)'), judged);
      await page.screenshot({ path: join(out, 'check-gb200.png'), fullPage: true });
      // A NIC picked: used at once, the GPU picker untouched, said given.
      await page.selectOption('#nic-select', 'ib-xdr');
      await page.waitForFunction(() => document.querySelector('[data-testid=check-fields]')?.textContent.includes('XDR'));
      const fields = await page.textContent('[data-testid=check-fields]');
      const nicField = fields.match(/nic: [^)]*\)/)?.[0];
      assert(nicField === 'nic: 4 x InfiniBand XDR 800G (given)', `the picked NIC, given: ${fields}`);
      assert(fields.includes('gpu: GB200 (Blackwell in NVL72) (read from the log)'), fields);
      [gpu, fabric, nic] = await picked();
      assert(gpu === 'gb200' && nic === 'ib-xdr', `pickers: ${gpu} ${nic}`);
      // The CLI with the same --nic: the same value under the same word.
      const json = JSON.parse(cli(['check', gb200Path, '--nic', 'ib-xdr', '--json']));
      assert(`nic: ${json.cluster.nic.value} (given)` === nicField && json.cluster.nic.source === 'flag', JSON.stringify(json.cluster.nic));
      const text = cli(['check', gb200Path, '--nic', 'ib-xdr']);
      assert(text.split('\n').some((l) => l.startsWith('Given: ') && l.includes('nic 4 x InfiniBand XDR 800G')), text);
      // A GPU the log contradicts: used, given, and the log's GPU named (as the CLI does).
      await page.selectOption('#gpu-select', 'h100');
      await page.waitForSelector('[data-testid=check-overruled]');
      const said = await page.textContent('[data-testid=check-overruled]');
      assert(said === 'gpu: the log says GB200 (Blackwell in NVL72); checked against H100-SXM5 80GB, as given.', said);
      assert((await page.textContent('[data-testid=check-fields]')).includes('gpu: H100-SXM5 80GB (given)'), 'the picked GPU, given');
      const cliSaid = cli(['check', gb200Path, '--gpu', 'h100', '--nic', 'ib-xdr']);
      assert(cliSaid.includes(said), `the CLI says the same: ${cliSaid}`);
      await page.screenshot({ path: join(out, 'check-gb200-overruled.png'), fullPage: true });
      // Forgetting the picks gives the log's GPU back.
      await page.click('[data-testid=forget-picks]');
      await page.waitForFunction(() => document.getElementById('gpu-select').value === 'gb200');
      assert((await page.locator('[data-testid=check-overruled]').count()) === 0, 'nothing overruled once the picks are forgotten');
      assert(problems.length === 0, problems.join('\n'));
      await page.context().close();
    });

    await check('issue 37: an EFA log sets the NIC picker to EFA; InfiniBand picked is used at once, given, with the log\'s EFA said', async () => {
      const { page, problems } = await newPage();
      await open(page);
      await paste(page, efa);
      await page.waitForSelector('[data-testid=check-status]');
      assert((await page.inputValue('#nic-select')) === 'efa-100', `the NIC picker shows EFA: ${await page.inputValue('#nic-select')}`);
      assert((await page.textContent('[data-testid=check-fields]')).includes("nic: 32 x AWS EFA 100G (SRD) (inferred from the log's numbers)"), 'EFA inferred');
      await page.selectOption('#nic-select', 'ib-ndr');
      await page.waitForSelector('[data-testid=check-overruled]');
      const fields = await page.textContent('[data-testid=check-fields]');
      assert(fields.includes('nic: 8 x InfiniBand NDR 400G (given)'), fields);
      const said = await page.textContent('[data-testid=check-overruled]');
      assert(said.startsWith('nic: the log says the network is AWS libfabric (NET/OFI, EFA); checked against 8 x InfiniBand NDR 400G, as given.'), said);
      const text = cli(['check', efaPath, '--nic', 'ib-ndr']);
      assert(text.split('\n').some((l) => l.startsWith('Given: ') && l.includes('nic 8 x InfiniBand NDR 400G')) && text.includes(said), text);
      assert(problems.length === 0, problems.join('\n'));
      await page.context().close();
    });

    await check('a bad paste after a verdict clears the old verdict', async () => {
      const { page, problems } = await newPage();
      await open(page);
      await paste(page, nvls);
      await page.waitForFunction(() => document.querySelector('[data-testid=check-status]')?.textContent.startsWith('Not healthy'));
      await paste(page, 'not a log at all');
      await page.waitForFunction(() => document.querySelector('[data-testid=check-note]')?.textContent.startsWith('not nccl-tests output'));
      assert((await page.locator('[data-testid=check-status]').count()) === 0, 'the red verdict of the previous log is gone');
      assert((await page.locator('[data-testid=check-table]').count()) === 0, 'and its table');
      assert(problems.length === 0, problems.join('\n'));
      await page.context().close();
    });

    await check('32 per-node runs: the link stays under 8 KB, says it left them out, and reopens with the design', async () => {
      const { page, problems } = await newPage();
      await open(page);
      const host = healthy.match(/ on (\S+) device/)[1];
      const log = Array.from({ length: 32 }, (_, i) => healthy.split(host).join(`gpu-node-${String(i).padStart(3, '0')}.a-long-cluster-domain.example`)).join('\n');
      await paste(page, log);
      await page.waitForSelector('[data-testid=check-status]', { timeout: 30000 });
      await page.waitForSelector('[data-testid=link-note]');
      const note = await page.textContent('[data-testid=link-note]');
      assert(note.includes('The link keeps the design only') || note.includes('The link leaves out'), note);
      // The link may keep the design only (as short as the one opened): wait for it to settle.
      await page.waitForFunction(() => location.hash.startsWith('#s=v1.'));
      await page.waitForTimeout(1000);
      const link = await page.evaluate(() => location.href);
      const hash = link.split('#s=')[1] ?? '';
      assert(hash.length <= 8192, `the link is ${hash.length} bytes`);
      const p2 = await newPage();
      await p2.page.goto(link, { waitUntil: 'load' });
      await p2.page.waitForSelector('[data-testid=design]', { timeout: 15000 });
      assert((await p2.page.textContent('[data-testid=design]')).includes('2 nodes × 8 GPUs'), 'the link\'s design, not the default');
      assert((await p2.page.locator('[data-testid=link-notes]').count()) === 0, 'no fallback notes on reopening');
      assert(problems.length === 0 && p2.problems.length === 0, [...problems, ...p2.problems].join('\n'));
      await p2.ctx.close();
      await page.context().close();
    });

    await check('a 300 KB line of launcher prefixes is read (in the worker, else in slices): no long task while reading', async () => {
      const { page, problems } = await newPage();
      await open(page);
      await page.evaluate(() => {
        window.__long = [];
        new PerformanceObserver((l) => window.__long.push(...l.getEntries().map((e) => e.duration))).observe({ type: 'longtask', buffered: false });
      });
      const hostile = `${'[0]'.repeat(100000)} 8 2 float sum -1 10.0 0.00 0.00 0\n${healthy}`;
      await page.fill('[data-testid=check-log]', hostile);
      await page.evaluate(() => { window.__long = []; });
      await page.click('[data-testid=check-run]');
      await page.waitForSelector('[data-testid=check-status]', { timeout: 30000 });
      const long = await page.evaluate(() => window.__long);
      // The reading is sliced; the one check and render at the end may be one task.
      longestTask('reading a hostile log, besides the final check and render', long.sort((a, b) => a - b).slice(0, -1));
      budget('the final check and render', Math.max(0, ...long), LONG_TASK_MS, FREEZE_MS);
      assert(problems.length === 0, problems.join('\n'));
      await page.context().close();
    });

    await check('a 4 MB verbose log is read in the background worker with progress: no long task while reading', async () => {
      const { page, problems } = await newPage();
      await open(page);
      // NCCL_DEBUG=INFO chatter (read and skipped as such) around a healthy sweep.
      // Set in the page (Playwright's fill types it in far too slowly).
      const size = await page.evaluate((healthy) => {
        const chatter = Array.from({ length: 60000 }, (_, i) => `node${i % 8}:${1000 + i}:${1000 + i} [${i % 8}] NCCL INFO Channel ${String(i % 32).padStart(2, '0')}/0 : ${i % 8}[${i % 8}] -> ${(i + 1) % 8}[${(i + 1) % 8}] via P2P/IPC/read`).join('\n');
        const box = document.querySelector('[data-testid=check-log]');
        box.value = `${chatter}\n${healthy}`;
        box.dispatchEvent(new Event('input', { bubbles: true }));
        return box.value.length;
      }, healthy);
      await page.evaluate(() => {
        window.__long = [];
        new PerformanceObserver((l) => window.__long.push(...l.getEntries().map((e) => e.duration))).observe({ type: 'longtask', buffered: false });
        window.__notes = [];
        new MutationObserver(() => {
          const n = document.querySelector('[data-testid=check-note]');
          if (n) window.__notes.push(n.textContent);
        }).observe(document.body, { subtree: true, childList: true, characterData: true });
      });
      const t0 = Date.now();
      await page.click('[data-testid=check-run]');
      await page.waitForSelector('[data-testid=check-status]', { timeout: 60000 });
      const ms = Date.now() - t0;
      const status = await page.textContent('[data-testid=check-status]');
      const { long, notes } = await page.evaluate(() => ({ long: window.__long, notes: window.__notes }));
      console.log(`    ${(size / 1e6).toFixed(1)} MB read in ${ms} ms; all long tasks ${JSON.stringify(long.map(Math.round))}; notes: ${[...new Set(notes)].slice(0, 4).join(' | ')}`);
      assert(status.startsWith('Healthy'), status);
      assert(notes.some((n) => /Reading the log in a background worker: \d+%/.test(n)), `progress from the worker: ${[...new Set(notes)].join(' | ')}`);
      // Reading the textarea's 4 MB value on the click and the final check and render may be a
      // task each (measured 99 ms and 253 ms with the main-thread reader before the worker too).
      longestTask('reading a 4 MB log in the worker, besides handing it over and the final check and render', long.sort((a, b) => a - b).slice(0, -2));
      budget('a 4 MB log, click to verdict', ms, 3000, 30000);
      assert(problems.length === 0, problems.join('\n'));
      await page.context().close();
    });

    await check('the explorer has no check panel; its Check link carries the design, and check.html links back', async () => {
      const { page, problems } = await newPage();
      await page.goto(`${base}#s=${NODES2}`, { waitUntil: 'load' });
      await page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
      assert((await page.locator('[data-testid=check]').count()) === 0, 'no check panel in the explorer');
      await page.click('[data-testid=to-check]');
      await page.waitForSelector('[data-testid=check-log]', { timeout: 15000 });
      assert(page.url() === `${base}check.html#s=${NODES2}`, page.url());
      assert((await page.textContent('[data-testid=design]')).includes('2 nodes × 8 GPUs'), 'the link\'s design');
      await page.click('[data-testid=to-explorer]');
      await page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
      assert(page.url() === `${base}#s=${NODES2}`, page.url());
      assert(problems.length === 0, problems.join('\n'));
      await page.context().close();
    });

    await check('issue 20: a busbw of 1e300 in a link is brought down to its bound with a note; no negative-width bar', async () => {
      const { page, problems } = await newPage();
      const json = JSON.stringify({ n: 2, m: [{ op: 'all_reduce', ranks: 16, nodes: 2, gpus_per_node: 8, points: '67108864:500:1e300 134217728:900:1e300 268435456:1800:1e300' }] });
      await open(page, 'v1.' + Buffer.from(json).toString('base64url'));
      await page.waitForSelector('[data-testid=link-notes]', { timeout: 15000 });
      const notes = await page.textContent('[data-testid=link-notes]');
      assert(/busbw 1e300 GB\/s at \d+ bytes is above the 1e5 GB\/s allowed; using 1e5/.test(notes), `note: ${notes}`);
      const widths = await page.evaluate(() => [...document.querySelectorAll('svg rect')].map((r) => r.getAttribute('width') ?? ''));
      const bad = widths.filter((w) => /^-|inf|nan/i.test(w));
      assert(widths.length > 0 && bad.length === 0, `no negative, infinite or NaN widths: ${bad}`);
      assert(problems.length === 0, problems.join('\n'));
      await page.context().close();
    });

    await check('issue 38: a paste over the limit is refused with the limit named, before it is read; no long task; a CR-only log is read', async () => {
      const { page, problems } = await newPage();
      await page.addInitScript(() => {
        window.__long = [];
        new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(Math.round(e.duration)); }).observe({ type: 'longtask', buffered: true });
      });
      await open(page);
      // A 17 MiB paste: refused before the box takes it.
      const refused = await page.evaluate(() => {
        window.__long = [];
        const dt = new DataTransfer();
        // 17 MiB of text (12 characters a line).
        dt.setData('text/plain', '# nThread 1\n'.repeat(Math.ceil((17 << 20) / 12)));
        const e = new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true });
        document.querySelector('[data-testid=check-log]').dispatchEvent(e);
        return e.defaultPrevented;
      });
      assert(refused, 'the paste over the limit is stopped');
      await page.waitForSelector('[data-testid=check-note]', { timeout: 5000 });
      let note = await page.textContent('[data-testid=check-note]');
      assert(note.includes('over the 16 MiB a log may have') && note.includes('Not read'), `the limit in the message: ${note}`);
      assert((await page.inputValue('[data-testid=check-log]')) === '', 'the box did not take it');
      let longest = await page.evaluate(() => Math.max(0, ...window.__long));
      assert(longest <= 250, `no task over 250 ms for the refused paste: ${longest} ms`);
      // Text over the limit in the box (typed, or put there by a script): Run refuses it unread.
      await page.evaluate(() => { document.querySelector('[data-testid=check-log]').value = 'y'.repeat(17 << 20); });
      await page.waitForTimeout(500);
      await page.evaluate(() => { window.__long = []; });
      await page.click('[data-testid=check-run]');
      await page.waitForTimeout(300);
      note = await page.textContent('[data-testid=check-note]');
      assert(note.includes('17.0 MiB, over the 16 MiB'), `Run refuses it: ${note}`);
      longest = await page.evaluate(() => Math.max(0, ...window.__long));
      console.log(`    longest main-thread task on the refused paste and Run: ${longest} ms`);
      assert(longest <= 250, `no task over 250 ms for the refused Run: ${longest} ms`);
      assert(!(await page.$('[data-testid=check-status]')), 'no verdict from a refused text');
      await page.evaluate(() => { document.querySelector('[data-testid=check-log]').value = ''; });
      await page.screenshot({ path: join(out, 'check-refused-paste.png'), fullPage: false });
      // Lines ending in a lone CR (old Mac tools) are lines.
      await paste(page, nvls.replace(/\r?\n/g, '\r'));
      await page.waitForSelector('[data-testid=check-status]', { timeout: 15000 });
      assert((await rows(page)) > 10, `a CR-only log read row by row: ${await rows(page)} rows`);
      assert(problems.length === 0, problems.join('\n'));
      await page.context().close();
    });

    await check('on a phone the panel and its chart fit the width', async () => {
      const { page, problems } = await newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
      await open(page);
      // Issue 20: the paste box comes first on a phone, the design below it.
      const order = await page.evaluate(() => [document.querySelector('[data-testid=check-log]').getBoundingClientRect().top, document.getElementById('design-heading').getBoundingClientRect().top]);
      assert(order[0] < order[1], `the paste box (top ${order[0]}) above the design (top ${order[1]})`);
      await paste(page, nvls);
      await page.waitForSelector('[data-testid=check-status]');
      const over = await page.evaluate(() => {
        const p = document.querySelector('[data-testid=check]').getBoundingClientRect();
        const s = document.querySelector('[data-testid=check-chart] svg').getBoundingClientRect();
        return s.right > p.right + 1 || document.documentElement.scrollWidth > window.innerWidth + 1;
      });
      assert(!over, 'the chart or the page overflows the phone width');
      await page.screenshot({ path: join(out, 'check-phone-light.png'), fullPage: true });
      assert(problems.length === 0, problems.join('\n'));
      await page.context().close();
    });
  } finally {
    await browser.close();
    await server.stop();
  }
  if (!summary('check e2e')) process.exit(1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
