// Developer tool: CPU profile of cold loads of the explorer, inclusive time per function,
// summed over LOADS loads (default 3). Point DIST at a build whose wasm keeps its name section.
//   DIST=/tmp/prof node e2e/profile-load.mjs
import { chromium } from 'playwright-core';
import { resolve } from 'node:path';
import { serve, ARGS } from './run.mjs';

const dist = resolve(process.env.DIST ?? 'dist');
const loads = Number(process.env.LOADS ?? 3);
const [server, base] = await serve(dist);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS, headless: true });
try {
  const incl = new Map();
  for (let i = 0; i < loads; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await ctx.newPage();
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    await page.goto(base, { waitUntil: 'load' });
    await page.waitForSelector('[data-testid=export]', { timeout: 30000 });
    await page.waitForTimeout(500);
    const { profile } = await cdp.send('Profiler.stop');
    await ctx.close();
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const dt = profile.timeDeltas;
    // WITHIN=name: only the samples of the first run of calls under a function of that name
    // (e.g. mount_now: the first render's task).
    const stack = (id) => {
      const fs = [];
      for (let x = id; x !== undefined; x = parent.get(x)) fs.push(byId.get(x).callFrame.functionName);
      return fs;
    };
    let keep = () => true;
    if (process.env.WITHIN) {
      const hits = profile.samples.map((id) => stack(id).some((f) => f.includes(process.env.WITHIN)));
      const first = hits.indexOf(true);
      let last = first;
      while (last + 1 < hits.length && (hits[last + 1] || !stack(profile.samples[last + 1]).some((f) => f === '(idle)'))) last++;
      keep = (k) => k >= first && k <= last;
    }
    profile.samples.forEach((id, k) => {
      if (!keep(k)) return;
      const seen = new Set();
      for (let x = id; x !== undefined; x = parent.get(x)) {
        const f = byId.get(x).callFrame.functionName || '(anon)';
        if (seen.has(f)) continue;
        seen.add(f);
        incl.set(f, (incl.get(f) ?? 0) + (dt[k] ?? 0));
      }
    });
  }
  const filter = new RegExp(process.env.FILTER ?? 'fabricscope|yew::|(program)|(root)|(garbage collector)|js-to-wasm|Layout|Style');
  const rows = [...incl].filter(([f]) => filter.test(f)).sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 60));
  console.log(rows.map(([f, us]) => `${(us / 1000 / loads).toFixed(2).padStart(8)} ms/load  ${f.slice(0, 160)}`).join('\n'));
} finally {
  await browser.close();
  server.close();
}
