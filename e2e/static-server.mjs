// A tiny static file server for the e2e suites: serves a directory under a path prefix
// (e.g. /tools/fabricscope/), optional extra files at fixed paths, logs every request, and
// can be stopped (connections cut, as if the network went away) and restarted on the same
// port (same origin, so the service worker and its caches carry over).

import { createServer } from 'node:http';
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
};

/**
 * @param {{ root: string, prefix?: string, extra?: Record<string, string>, port?: number }} opts
 *   root: directory served under `prefix` (default '/'); extra: URL path -> file path.
 */
export async function startServer({ root, prefix = '/', extra = {}, port = 0 }) {
  const state = { root, requests: [], sockets: new Set() };
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    state.requests.push(path);
    try {
      let file;
      if (extra[path]) file = extra[path];
      else if (path.startsWith(prefix)) {
        file = normalize(join(state.root, path.slice(prefix.length)));
        if (file !== state.root && !file.startsWith(state.root + sep)) throw new Error('outside root');
        if ((await stat(file).catch(() => null))?.isDirectory()) file = join(file, 'index.html');
      } else throw new Error('outside prefix');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': MIME[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  server.on('connection', (s) => {
    state.sockets.add(s);
    s.on('close', () => state.sockets.delete(s));
  });
  await new Promise((ok) => server.listen(port, '127.0.0.1', ok));
  const actual = server.address().port;
  return {
    origin: `http://127.0.0.1:${actual}`,
    port: actual,
    requests: state.requests,
    /** Serve another directory from now on (a new deploy). */
    setRoot(dir) {
      state.root = dir;
    },
    /** Stops listening and cuts open connections. */
    async stop() {
      for (const s of state.sockets) s.destroy();
      await new Promise((ok) => server.close(() => ok()));
    },
  };
}

/** Chromium flags that keep a headless run quiet on a closed network (TOOLCHAIN.md). */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** A check runner: prints ok/FAIL lines and remembers the outcome. */
export function checker() {
  const results = [];
  return {
    results,
    async check(name, fn) {
      const t0 = Date.now();
      try {
        await fn();
        results.push(true);
        console.log(`ok   ${name} (${Date.now() - t0} ms)`);
      } catch (e) {
        results.push(false);
        console.log(`FAIL ${name}\n     ${String(e?.stack ?? e).split('\n').slice(0, 6).join('\n     ')}`);
      }
    },
    summary(label) {
      const passed = results.filter(Boolean).length;
      console.log(`${label}: ${passed} passed, ${results.length - passed} failed`);
      return results.length - passed === 0;
    },
  };
}

export function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

/** The RAIL long-task threshold, ms: the target for any main-thread task while a page works. */
export const LONG_TASK_MS = 50;
/** A task this long is a frozen page, ms: no load on a shared CI box explains it (the freezes
 * the issues found were 2.7 s and 8.6 s; a quadratic read of a hostile log, 20 s). */
export const FREEZE_MS = 250;

/**
 * A timing budget, measured and reported (OK/OVER against `target`), as bench.mjs does: it
 * fails the check only past `freeze` (a page that hangs), or past `target` with BENCH_STRICT=1.
 * Timings are benchmarks here, not exact assertions: a loaded 2-core box is noisy.
 */
export function budget(what, ms, target, freeze) {
  const ok = ms <= target;
  console.log(`    ${what}: ${Math.round(ms)} ms (target ${target} ms) ${ok ? 'OK' : 'OVER'}`);
  const limit = process.env.BENCH_STRICT === '1' ? target : freeze;
  assert(ms <= limit, `${what}: ${Math.round(ms)} ms (limit ${limit} ms${limit === target ? ', BENCH_STRICT=1' : ''})`);
}

/** [`budget`] for the longest of a list of main-thread tasks (ms). */
export function longestTask(what, durations) {
  budget(`${what}: longest main-thread task of ${durations.length} long ones`, Math.max(0, ...durations), LONG_TASK_MS, FREEZE_MS);
}

/** Records console errors, page errors, failed requests and HTTP errors of a page. */
export function watch(page, problems) {
  page.on('console', (m) => m.type() === 'error' && problems.push(`console error: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => {
    // A framed page's load cut short by the next fragment the outer page gives it (a slider
    // moved while the frame loads) is superseded, not failed: the frame loads the newer one.
    let superseded = false;
    try {
      superseded = r.isNavigationRequest() && r.frame() !== page.mainFrame() && r.failure()?.errorText === 'net::ERR_ABORTED';
    } catch {
      // A service worker's request has no frame: not a framed page's load.
    }
    if (!superseded) problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`);
  });
  page.on('response', (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));
  return problems;
}

/** Clicks preset `id`: the less common presets are folded under "More presets" on the
 * explorer and compare.html, so that group is opened first when the button is in it. */
export async function clickPreset(page, id) {
  if (await page.$(`details:not([open]) [data-preset=${id}]`)) await page.click(`details:has([data-preset=${id}]) > summary`);
  await page.click(`[data-preset=${id}]`);
}

/** Runs the CLI (the model's own answer to what a page shows): $FABRICSCOPE, else the newer of
 * the release and debug builds (a stale release binary must not answer), else cargo run. */
export function cli(args, input) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const built = [join(root, 'target/release/fabricscope'), join(root, 'target/debug/fabricscope')]
    .filter((b) => existsSync(b))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  const bin = process.env.FABRICSCOPE || built[0];
  const opts = { encoding: 'utf8', input, maxBuffer: 64 << 20 };
  if (bin) return execFileSync(bin, args, opts);
  return execFileSync('cargo', ['run', '-q', '-p', 'fabricscope-cli', '--', ...args], { cwd: root, ...opts });
}
