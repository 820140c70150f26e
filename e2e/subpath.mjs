// Static hosting, CSP and embedding, against a release build (dist/):
// - dist/ served under /tools/fabricscope/ (nothing at the site root) loads, renders and
//   requests nothing outside its own directory and origin; so do Learn (learn.html), Check
//   (check.html) and Compare (compare.html), under the same CSP, linking back to the explorer with the link's design;
// - damaged, hostile (9 KB), future-format and plain-JSON links still draw and say what fell
//   back, without a panic;
// - the Content-Security-Policy is enforced (inline script and eval are refused) and the page
//   runs without a single violation or console error;
// - embed.html?embed=<chart> (and an older ?embed= link to the explorer, which moves there)
//   renders one chart filling its iframe with a link back to the explorer,
//   and e2e/embed-example.html (the page docs/embed.md describes) shows two such iframes;
// - the explorer's share/export panel downloads JSON, CSV, SVG and PNG and imports JSON.
//
//   node e2e/subpath.mjs            (DIST=path to test another build)

import { chromium } from 'playwright-core';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, CHROMIUM_ARGS, checker, assert, watch } from './static-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.env.DIST ?? join(here, '..', 'dist'));
const out = join(here, 'out');
const PREFIX = '/tools/fabricscope/';
// 16 nodes x 8 B200, NVLink5, InfiniBand XDR (`fabricscope link`).
const B200 = 'v1.eyJnIjoiYjIwMCIsImkiOiJpYi14ZHIiLCJuIjoxNiwidSI6Im52bGluazUifQ';

async function main() {
  assert((await stat(join(dist, 'index.html')).catch(() => null)) !== null, `no build in ${dist}`);
  await mkdir(out, { recursive: true });
  const server = await startServer({ root: dist, prefix: PREFIX, extra: { '/embed-example.html': join(here, 'embed-example.html') } });
  const base = server.origin + PREFIX;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  const { check, summary } = checker();
  const contexts = [];
  const newPage = async (opts = {}) => {
    // No service worker here: every request must reach the server so it can be checked.
    const ctx = await browser.newContext({ serviceWorkers: 'block', ...opts });
    contexts.push(ctx);
    const page = await ctx.newPage();
    const problems = watch(page, []);
    const urls = [];
    page.on('request', (r) => urls.push(r.url()));
    return { page, problems, urls };
  };

  // The explorer on the B200 link at 1400 px, CSP violations collected in window.__violations.
  const explorerWatched = async () => {
    const r = await newPage({ viewport: { width: 1400, height: 900 } });
    await r.page.addInitScript(() => {
      window.__violations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await r.page.goto(`${base}#s=${B200}`, { waitUntil: 'load' });
    await r.page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
    return r;
  };

  try {
    await check(`explorer loads from a sub-path (${PREFIX}) with relative asset URLs`, async () => {
      const { page, problems, urls } = await newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(base, { waitUntil: 'load' });
      await page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
      const base_href = await page.evaluate(() => document.querySelector('base')?.getAttribute('href'));
      assert(base_href === './', `<base href> is relative: ${base_href}`);
      const outside = urls.filter((u) => !u.startsWith(base) && !u.startsWith('data:') && !u.startsWith('blob:'));
      assert(outside.length === 0, `requests outside ${base}:\n${outside.join('\n')}`);
      assert(urls.some((u) => u.endsWith('.wasm')), 'the wasm came from the sub-path');
      assert(problems.length === 0, problems.join('\n'));
      const rootHits = server.requests.filter((p) => !p.startsWith(PREFIX));
      assert(rootHits.length === 0, `requests outside the prefix: ${rootHits.join(', ')}`);
    });

    await check(`Learn (learn.html, its own wasm) from the sub-path: relative URLs, the same strict CSP with no violation, a frame of the link's design; the Explorer link carries it`, async () => {
      const { page, problems, urls } = await newPage({ viewport: { width: 1400, height: 900 } });
      await page.addInitScript(() => {
        window.__violations = [];
        document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
      });
      await page.goto(`${base}learn.html#s=${B200}`, { waitUntil: 'load' });
      await page.waitForSelector('#t-svg svg', { timeout: 15000 });
      const csp = await page.evaluate(() => document.querySelector('meta[http-equiv=Content-Security-Policy]')?.content ?? '');
      for (const d of ["default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", "style-src 'self'", "object-src 'none'"]) assert(csp.includes(d), `CSP has ${d}: ${csp}`);
      assert(!csp.includes("'unsafe-eval'") && !csp.includes("'unsafe-inline'"), `no unsafe-eval/unsafe-inline: ${csp}`);
      const inline = await page.evaluate(() => [...document.scripts].filter((s) => !s.src && s.textContent.trim()).length);
      assert(inline === 0, `${inline} inline scripts in learn.html`);
      assert((await page.evaluate(() => window.__violations.length)) === 0, await page.evaluate(() => window.__violations.join('; ')));
      const outside = urls.filter((u) => !u.startsWith(base) && !u.startsWith('data:') && !u.startsWith('blob:'));
      assert(outside.length === 0, `requests outside ${base}:\n${outside.join('\n')}`);
      assert(urls.some((u) => /fabricscope-learn-[^/]*_bg\.wasm$/.test(u)) && !urls.some((u) => /fabricscope-web-/.test(u)), `Learn's own wasm only: ${urls.filter((u) => u.endsWith('.wasm'))}`);
      const caption = await page.textContent('#t-count');
      assert(caption.includes('n = 32 GPUs'), `a small copy of the link's 16 nodes of B200: ${caption}`);
      await page.hover('.masthead a[data-carry]');
      assert((await page.getAttribute('.masthead a[data-carry]', 'href')) === `./#s=${B200}`, 'the Explorer link carries the design');
      await page.click('.masthead a[data-carry]');
      await page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
      assert(page.url() === `${base}#s=${B200}`, `back on the explorer with the design: ${page.url()}`);
      assert(problems.length === 0, problems.join('\n'));
      const rootHits = server.requests.filter((p) => !p.startsWith(PREFIX));
      assert(rootHits.length === 0, `requests outside the prefix: ${rootHits.join(', ')}`);
    });

    await check(`Check (check.html, its own wasm) from the sub-path: relative URLs, the same strict CSP with no violation, the link's design; the explorer's Check link carries the design there and back`, async () => {
      const { page, problems, urls } = await explorerWatched();
      assert((await page.locator('[data-testid=check]').count()) === 0, 'the explorer has no check panel');
      await page.hover('[data-testid=to-check]');
      assert((await page.getAttribute('[data-testid=to-check]', 'href')) === `check.html#s=${B200}`, 'the Check link carries the design');
      await page.click('[data-testid=to-check]');
      await page.waitForSelector('[data-testid=check-log]', { timeout: 15000 });
      assert(page.url() === `${base}check.html#s=${B200}`, `on check.html with the design: ${page.url()}`);
      const csp = await page.evaluate(() => document.querySelector('meta[http-equiv=Content-Security-Policy]')?.content ?? '');
      for (const d of ["default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", "style-src 'self'", "object-src 'none'"]) assert(csp.includes(d), `CSP has ${d}: ${csp}`);
      assert(!csp.includes("'unsafe-eval'") && !csp.includes("'unsafe-inline'"), `no unsafe-eval/unsafe-inline: ${csp}`);
      const inline = await page.evaluate(() => [...document.scripts].filter((s) => !s.src && s.textContent.trim()).length);
      assert(inline === 0, `${inline} inline scripts in check.html`);
      const gpu = await page.evaluate(() => document.querySelector('#gpu-select').value);
      const design = await page.textContent('[data-testid=design]');
      assert(gpu === 'b200' && design.includes('16 nodes × 8 GPUs'), `the link's design: ${gpu}, ${design}`);
      assert((await page.evaluate(() => window.__violations.length)) === 0, await page.evaluate(() => window.__violations.join('; ')));
      const outside = urls.filter((u) => !u.startsWith(base) && !u.startsWith('data:') && !u.startsWith('blob:'));
      assert(outside.length === 0, `requests outside ${base}:\n${outside.join('\n')}`);
      assert(urls.some((u) => /fabricscope-check-[^/]*_bg\.wasm$/.test(u)), `Check's own wasm: ${urls.filter((u) => u.endsWith('.wasm'))}`);
      await page.click('[data-testid=to-explorer]');
      await page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
      assert(page.url() === `${base}#s=${B200}`, `back on the explorer with the design: ${page.url()}`);
      assert(problems.length === 0, problems.join('\n'));
      const rootHits = server.requests.filter((p) => !p.startsWith(PREFIX));
      assert(rootHits.length === 0, `requests outside the prefix: ${rootHits.join(', ')}`);
    });

    await check(`Compare (compare.html, its own wasm) from the sub-path: relative URLs, the strict CSP with no violation, the explorer's link carries the design, each design opens in the explorer`, async () => {
      const { page, problems, urls } = await explorerWatched();
      await page.hover('[data-testid=to-compare]');
      assert((await page.getAttribute('[data-testid=to-compare]', 'href')) === `compare.html#s=${B200}`, 'the Compare link carries the design');
      await page.click('[data-testid=to-compare]');
      await page.waitForSelector('[data-testid=compare-chart] svg', { timeout: 15000 });
      assert(page.url().startsWith(`${base}compare.html#s=${B200}`), `on compare.html with the design: ${page.url()}`);
      assert((await page.evaluate(() => document.querySelector('#gpu-select').value)) === 'b200', 'the link\'s design in the controls');
      const inline = await page.evaluate(() => [...document.scripts].filter((s) => !s.src && s.textContent.trim()).length);
      assert(inline === 0, `${inline} inline scripts in compare.html`);
      assert((await page.evaluate(() => window.__violations.length)) === 0, await page.evaluate(() => window.__violations.join('; ')));
      const outside = urls.filter((u) => !u.startsWith(base) && !u.startsWith('data:') && !u.startsWith('blob:'));
      assert(outside.length === 0, `requests outside ${base}:\n${outside.join('\n')}`);
      assert(urls.some((u) => /fabricscope-compare-[^/]*_bg\.wasm$/.test(u)), `Compare's own wasm: ${urls.filter((u) => u.endsWith('.wasm'))}`);
      await page.click('[data-testid=design-open]');
      await page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
      assert(page.url().startsWith(`${base}#s=v1.`) && (await page.evaluate(() => document.querySelector('#gpu-select').value)) === 'b200', `the design opened in the explorer: ${page.url()}`);
      assert(problems.length === 0, problems.join('\n'));
      const rootHits = server.requests.filter((p) => !p.startsWith(PREFIX));
      assert(rootHits.length === 0, `requests outside the prefix: ${rootHits.join(', ')}`);
    });

    await check('CSP: strict policy in force, inline script and handlers refused, no violations by the app', async () => {
      const { page, problems } = await newPage();
      await page.addInitScript(() => {
        window.__violations = [];
        document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
      });
      await page.goto(base, { waitUntil: 'load' });
      await page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
      const csp = await page.evaluate(() => document.querySelector('meta[http-equiv=Content-Security-Policy]')?.content ?? '');
      for (const d of ["default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", "style-src 'self'", "object-src 'none'"]) {
        assert(csp.includes(d), `CSP has ${d}: ${csp}`);
      }
      assert(!csp.includes("'unsafe-eval'") && !csp.includes("'unsafe-inline'"), `no unsafe-eval/unsafe-inline: ${csp}`);
      const inlineScripts = await page.evaluate(() => [...document.scripts].filter((s) => !s.src && s.textContent.trim()).length);
      assert(inlineScripts === 0, `${inlineScripts} inline scripts in the page`);
      const appViolations = await page.evaluate(() => window.__violations.slice());
      assert(appViolations.length === 0, `the app itself violated the CSP: ${appViolations.join('; ')}`);
      // The policy really is enforced: an injected inline script and an inline event handler
      // do not run, and each is reported as a violation. (eval cannot be probed from here:
      // DevTools-evaluated code is exempt; the policy text above has no 'unsafe-eval'.)
      const probe = await page.evaluate(async () => {
        const s = document.createElement('script');
        s.textContent = 'window.__inlineRan = true';
        document.head.appendChild(s);
        const b = document.createElement('button');
        b.setAttribute('onclick', 'window.__handlerRan = true');
        document.body.appendChild(b);
        b.click();
        b.remove();
        await new Promise((r) => setTimeout(r, 50));
        return { inlineRan: !!window.__inlineRan, handlerRan: !!window.__handlerRan, violations: window.__violations.length };
      });
      assert(!probe.inlineRan && !probe.handlerRan && probe.violations >= 2, `CSP enforced: ${JSON.stringify(probe)}`);
      // Those two refusals are the only console errors.
      const unexpected = problems.filter((p) => !/Content Security Policy/.test(p));
      assert(unexpected.length === 0, unexpected.join('\n'));
    });

    await check('hostile and mangled links: the explorer still draws, says what fell back, never panics', async () => {
      const { page, problems } = await newPage({ viewport: { width: 1200, height: 800 } });
      const cases = [
        ['v1.eyJuIjoiZm91ciJ9', /cluster\.nodes/], // {"n":"four"}
        ['v1.!!!not-base64!!!', /link:/],
        ['v7.eyJuIjo4LCJ6eiI6MX0', /newer/], // a future format with an unknown field
        [`v1.${'A'.repeat(9000)}`, /longer than/],
        ['%7B%22cluster%22%3A%7B%22gpu%22%3A%22h900%22%7D%7D', /cluster\.gpu/], // plain JSON, bad GPU
      ];
      for (const [link, want] of cases) {
        // A fresh document per link: a hash change alone would not reload, and the previous
        // document's debounced link writer could rewrite the hash in between.
        await page.goto('about:blank');
        await page.goto(`${base}#s=${link}`, { waitUntil: 'load' });
        await page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
        const notes = (await page.textContent('[data-testid=link-notes]').catch(() => null)) ?? '';
        assert(want.test(notes), `${link.slice(0, 40)}: notes say ${JSON.stringify(notes.slice(0, 200))}`);
      }
      assert(problems.length === 0, problems.join('\n'));
    });

    await check('?embed=busbw renders one chart sized to its viewport, linking back to the explorer', async () => {
      const { page, problems } = await newPage({ viewport: { width: 640, height: 360 } });
      await page.goto(`${base}embed.html?embed=busbw&s=${B200}`, { waitUntil: 'load' });
      await page.waitForSelector('[data-testid=embed-chart] svg', { timeout: 15000 });
      const r = await page.evaluate(() => {
        const svg = document.querySelector('[data-testid=embed-chart] svg').getBoundingClientRect();
        const a = document.querySelector('[data-testid=embed-open]');
        return {
          w: svg.width, h: svg.height, bottom: svg.bottom,
          scrollW: document.documentElement.scrollWidth, scrollH: document.documentElement.scrollHeight,
          href: a?.href ?? '', target: a?.target ?? '',
          explorer: !!document.querySelector('[data-testid=chart]'),
          caption: document.querySelector('.embed-caption')?.textContent ?? '',
          charts: document.querySelectorAll('svg').length,
        };
      });
      assert(!r.explorer, 'no explorer chrome in embed mode');
      assert(r.w > 560 && r.h > 250 && r.bottom <= 360, `chart fills the frame: ${r.w}x${r.h}, bottom ${r.bottom}`);
      assert(r.scrollW <= 640 && r.scrollH <= 360, `no scrolling: ${r.scrollW}x${r.scrollH}`);
      assert(r.href === `${base}#s=${B200}`, `links back to the explorer with the scenario: ${r.href}`);
      assert(r.target === '_blank', 'opens in a new tab');
      assert(r.caption.includes('16 nodes × 8 B200') && r.caption.includes('NCCL'), `caption states the scenario: ${r.caption}`);
      assert(problems.length === 0, problems.join('\n'));
      await page.screenshot({ path: join(out, 'embed-busbw.png') });
      // The frame changes shape (a page resizes its iframe): the chart is redrawn for it.
      await page.setViewportSize({ width: 420, height: 560 });
      await page.waitForFunction(() => document.querySelector('[data-testid=embed-chart] svg')?.getAttribute('width') === '408', null, { timeout: 5000 });
      const tall = await page.evaluate(() => document.querySelector('[data-testid=embed-chart] svg').getBoundingClientRect().height);
      assert(tall > 400, `redrawn tall: ${tall}px`);
    });

    await check('?embed=step: a training chart of the link\'s job', async () => {
      const { page } = await newPage({ viewport: { width: 700, height: 400 } });
      // An older snippet's link to the explorer (?embed= on index.html) moves to embed.html.
      await page.goto(`${base}?embed=step&s=${B200}`, { waitUntil: 'load' });
      await page.waitForSelector('[data-testid=embed-chart][data-chart=step] svg', { timeout: 15000 });
      assert(new URL(page.url()).pathname === `${PREFIX}embed.html`, `moved to embed.html: ${page.url()}`);
      const cap = await page.textContent('.embed-caption');
      assert(cap.includes('16 nodes × 8 B200') && cap.includes('llama3-8b on TP'), `caption names cluster and job: ${cap}`);
    });

    await check('embed: unknown chart and damaged link explain themselves', async () => {
      const { page } = await newPage({ viewport: { width: 500, height: 300 } });
      await page.goto(`${base}?embed=pie`, { waitUntil: 'load' });
      await page.waitForSelector('[data-testid=embed] [role=alert]', { timeout: 15000 });
      const msg = await page.textContent('[data-testid=embed] [role=alert]');
      assert(/busbw, hierarchy, topology/.test(msg), msg);
      await page.goto(`${base}?embed=hierarchy&s=v1.eyJuIjoiZm91ciJ9`, { waitUntil: 'load' });
      await page.waitForSelector('[data-testid=embed-chart] svg', { timeout: 15000 });
      const warn = await page.textContent('[data-testid=embed-warnings]');
      assert(/cluster\.nodes/.test(warn), `names the field: ${warn}`);
    });

    await check('e2e/embed-example.html: two iframes, each one chart of the scenario', async () => {
      const { page, problems } = await newPage({ viewport: { width: 900, height: 1400 } });
      await page.goto(`${server.origin}/embed-example.html`, { waitUntil: 'load' });
      for (const [id, chart] of [['busbw', 'busbw'], ['hierarchy', 'hierarchy']]) {
        const frame = page.frameLocator(`#${id}`);
        await frame.locator('[data-testid=embed-chart] svg').waitFor({ timeout: 15000 });
        const got = await frame.locator('[data-testid=embed-chart]').getAttribute('data-chart');
        assert(got === chart, `#${id} shows ${got}`);
        const cap = await frame.locator('.embed-caption').textContent();
        assert(cap.includes('16 nodes × 8 B200'), `#${id} caption: ${cap}`);
        const box = await page.locator(`#${id}`).boundingBox();
        const svg = await frame.locator('[data-testid=embed-chart] svg').boundingBox();
        assert(svg && box && svg.width > box.width * 0.85 && svg.height > box.height * 0.6, `#${id} chart fills the iframe: ${JSON.stringify({ box, svg })}`);
        const href = await frame.locator('[data-testid=embed-open]').getAttribute('href');
        assert(href.startsWith('./#s=v1.'), `#${id} link back: ${href}`);
      }
      assert(problems.length === 0, problems.join('\n'));
      await page.screenshot({ path: join(out, 'embed-example.png'), fullPage: true });
    });

    await check('export panel: JSON, CSV, SVG and PNG downloads, the embed snippet, JSON import', async () => {
      const { page, problems } = await newPage({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
      await page.goto(`${base}#s=${B200}`, { waitUntil: 'load' });
      await page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
      // The panels below the charts join a frame or more after the first chart (staged load).
      assert(await page.waitForSelector('[data-testid=export]', { timeout: 10000 }).catch(() => null), 'the explorer shows the share/export panel');
      const grab = async (testid) => {
        const [d] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), page.click(`[data-testid=${testid}]`)]);
        const path = await d.path();
        const { readFile } = await import('node:fs/promises');
        return { name: d.suggestedFilename(), body: await readFile(path) };
      };
      const json = await grab('export-json');
      const scenario = JSON.parse(json.body.toString());
      assert(json.name === 'fabricscope-scenario.json' && scenario.cluster.gpu === 'b200' && scenario.cluster.nodes === 16, `scenario JSON: ${json.body}`);
      const csv = await grab('export-csv');
      assert(csv.body.toString().startsWith('op,scope,ranks,bytes,'), 'CSV header');
      const svg = await grab('export-busbw-svg');
      assert(svg.body.toString().startsWith('<svg') && svg.body.toString().includes('16 nodes × 8 B200'), 'SVG titled with the scenario');
      // Training charts (once the search has answered) and the ranked layouts.
      await page.waitForSelector('[data-testid=export-step-svg]:not([disabled])', { timeout: 30000 });
      const step = (await grab('export-step-svg')).body.toString();
      assert(step.startsWith('<svg') && step.includes('16 nodes × 8 B200') && step.includes('llama3-8b on TP'), 'step chart titled with cluster and job');
      const mfu = await grab('export-mfu-png');
      assert(mfu.name === 'fabricscope-mfu.png' && mfu.body.subarray(1, 4).toString() === 'PNG', 'MFU heatmap as PNG');
      const layouts = (await grab('export-layouts')).body.toString().split('\r\n');
      assert(layouts[0].startsWith('rank,layout,tp,pp,dp,') && layouts[1].startsWith('1,TP'), `layouts CSV: ${layouts.slice(0, 2)}`);
      assert(layouts.filter((l) => l).length > 5, `more layouts than the panel shows: ${layouts.length}`);
      const png = await grab('export-hierarchy-png');
      assert(png.name === 'fabricscope-hierarchy.png' && png.body.subarray(1, 4).toString() === 'PNG' && png.body.length > 5000, `PNG: ${png.body.length} bytes`);
      const snippet = await page.inputValue('[data-testid=embed-snippet]');
      assert(snippet.startsWith(`<iframe src="${base}embed.html?embed=busbw#s=${B200}"`), `snippet: ${snippet}`);
      await page.locator('[data-testid=export]').screenshot({ path: join(out, 'export-panel.png') });
      // Import: the file's scenario becomes the page's link, as if a permalink was opened.
      await Promise.all([
        page.waitForEvent('load', { timeout: 10000 }),
        page.setInputFiles('[data-testid=import-json]', { name: 'two-nodes.json', mimeType: 'application/json', buffer: Buffer.from('{"cluster":{"nodes":2}}') }),
      ]);
      await page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
      const hash = await page.evaluate(() => location.hash);
      assert(hash === '#s=v1.eyJuIjoyfQ', `imported scenario in the link: ${hash}`);
      // A file that is not a scenario keeps the design and says so (no reload, same link).
      await page.setInputFiles('[data-testid=import-json]', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('nodes: 4') });
      const refused = await page.textContent('.export-note', { timeout: 5000 });
      assert(refused.includes('the design is unchanged: not valid JSON'), `refused import, as the CLI says it: ${refused}`);
      assert((await page.evaluate(() => location.hash)) === '#s=v1.eyJuIjoyfQ', 'the link is unchanged');
      // A file the CLI refuses (issue 20: an unknown GPU, a negative node count, an unknown
      // field) keeps the design as it was and shows the CLI's message naming the field.
      for (const [name, body, field] of [
        ['gpu.json', '{"cluster":{"nodes":8,"gpu":"h900"}}', 'cluster.gpu: unknown variant'],
        ['negative.json', '{"cluster":{"nodes":-4}}', 'cluster.nodes: invalid value: integer `-4`'],
        ['zz.json', '{"cluster":{"nodes":8},"zz":1}', 'unknown field `zz`'],
        ['range.json', '{"cluster":{"nodes":100000}}', 'cluster.nodes:'],
      ]) {
        await page.setInputFiles('[data-testid=import-json]', { name, mimeType: 'application/json', buffer: Buffer.from(body) });
        await page.waitForFunction((f) => document.querySelector('.export-note')?.textContent.includes(f), field, { timeout: 5000 }).catch(() => {});
        const note = await page.textContent('.export-note');
        assert(note.includes('Not imported; the design is unchanged: ') && note.includes(field), `${name} refused with the CLI's message (${field}): ${note}`);
        assert((await page.evaluate(() => location.hash)) === '#s=v1.eyJuIjoyfQ', `${name}: the link (the design) is unchanged`);
        assert(!(await page.$('[data-testid=link-notes]')), `${name}: no notes, nothing loaded`);
      }
      // A valid pretty-printed file over the 8 KiB link limit is a scenario file like any other.
      const padded = JSON.stringify({ cluster: { nodes: 2 } }, null, 2).replace(/\n/g, '\n' + ' '.repeat(5000));
      await Promise.all([
        page.waitForEvent('load', { timeout: 10000 }),
        page.setInputFiles('[data-testid=import-json]', { name: 'big.json', mimeType: 'application/json', buffer: Buffer.from(padded) }),
      ]);
      await page.waitForSelector('[data-testid=chart] svg', { timeout: 15000 });
      assert((await page.evaluate(() => location.hash)) === '#s=v1.eyJuIjoyfQ', `a ${padded.length}-byte file imported`);
      assert(!(await page.$('[data-testid=link-notes]')), 'no notes for a valid file');
      assert(problems.length === 0, problems.join('\n'));
    });
  } finally {
    for (const c of contexts) await c.close().catch(() => {});
    await browser.close().catch(() => {});
    await server.stop();
  }
  process.exit(summary('e2e subpath/CSP/embed') ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
