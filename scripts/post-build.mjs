// Trunk post_build hook (Trunk.toml [[hooks]]): runs in Trunk's staging directory before it
// replaces dist/. It runs for each page (scripts/pages.mjs): Trunk builds one HTML file per
// run, so scripts/build.sh builds every other page (its own wasm) into target/<page>-dist first
// and index.html into dist/ last; that run merges the others' files in (job 3) before writing
// sw.js.
//
// 1. CSP: Trunk writes the wasm loader as an inline <script type="module">, which each
//    page's Content-Security-Policy (script-src 'self' 'wasm-unsafe-eval', no inline
//    scripts) would block. Move it to boot-<hash>.js next to the page and reference it
//    with an integrity hash. Any other inline script (trunk serve's autoreload client) only
//    exists in dev builds: for those the CSP gets 'unsafe-inline' and ws: and a note says so,
//    and the hook refuses to let such a build replace dist/ (the deployable folder).
// 2. Size: minify the JS (wasm-bindgen's glue) and CSS with esbuild (e2e/node_modules), and
//    update their integrity hashes in the page (part of its gzipped budget). sw.js,
//    written last, is minified below its version and file list.
// 3. Pages: in index.html's run, copy each other page's build (target/<page>-dist) into the
//    staging directory, so dist/ deploys as one folder.
// 4. Workers: write worker-<hash>.js, the bootstrap of a module Web Worker that starts the
//    page's own wasm again off the main thread (src/plumbing/worker.rs: long searches and studies), and
//    name it by <meta name="fabricscope-worker"> in each page marked `worker` in pages.mjs. It imports the glue and wasm the
//    page names in its first message (same origin only), so a worker costs no second wasm. It is
//    generated here rather than kept in assets/ (hand-written JS there is sw.js and pages.js).
// 5. Offline: write sw.js from assets/sw.js with the list of files of this build (Trunk's
//    hashed names) and a cache version derived from their contents, so a new deploy gets a
//    new cache and the old one is deleted. One sw.js precaches every page's files; the other
//    pages' own runs write none (index.html's run does, after the merge).
//
//   TRUNK_STAGING_DIR=dist node scripts/post-build.mjs   (also works on a finished dist/)

import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { PAGES, pageDist } from './pages.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const staging = process.env.TRUNK_STAGING_DIR ?? join(root, 'dist');
const say = (m) => console.log(`[post-build] ${m}`);

const sha = (alg, data) => createHash(alg).update(data).digest();

async function files(dir) {
  const out = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await files(p)));
    else out.push(p);
  }
  return out;
}

/** The pages of this run (Trunk's output HTML: one of scripts/pages.mjs). */
const pages = (await readdir(staging)).filter((f) => f.endsWith('.html'));

async function externalizeLoader(page) {
  const pagePath = join(staging, page);
  let html = await readFile(pagePath, 'utf8');
  const inline = /<script type="module">([\s\S]*?)<\/script>/;
  const m = html.match(inline);
  if (m) {
    const code = m[1].trim() + '\n';
    const name = `boot-${sha('sha256', code).toString('hex').slice(0, 16)}.js`;
    await writeFile(join(staging, name), code);
    const integrity = `sha384-${sha('sha384', code).toString('base64')}`;
    html = html.replace(inline, `<script type="module" src="${name}" integrity="${integrity}"></script>`);
    say(`moved the inline wasm loader to ${name}`);
  }
  // Inline scripts left over (no src attribute) can only be trunk serve's autoreload client.
  if (/<script(?![^>]*\bsrc=)[^>]*>[\s\S]*?\S[\s\S]*?<\/script>/.test(html)) {
    // dist/ is the deployable folder: a dev build must never land there (scripts/serve.sh
    // builds into target/serve-dist). Trunk names the destination in TRUNK_DIST_DIR.
    const dist = process.env.TRUNK_DIST_DIR;
    if (dist && resolve(root, dist) === resolve(root, 'dist')) {
      throw new Error("a dev build (trunk serve's autoreload script, relaxed CSP) would replace dist/, the deployable folder: run scripts/serve.sh, which serves from target/serve-dist");
    }
    html = html.replace(/(script-src [^;"]*)/, "$1 'unsafe-inline'").replace(/(connect-src [^;"]*)/, '$1 ws: wss:');
    say("dev build with trunk's inline autoreload script: CSP relaxed ('unsafe-inline', ws:); release builds stay strict");
  }
  await writeFile(pagePath, html);
}

async function writeServiceWorker() {
  const all = (await files(staging)).map((p) => relative(staging, p).split(sep).join('/'));
  const list = all.filter((f) => f !== 'sw.js' && !f.endsWith('.map')).sort();
  const h = createHash('sha256');
  for (const f of list) {
    h.update(f + '\0');
    h.update(sha('sha256', await readFile(join(staging, f))));
  }
  const version = h.digest('hex').slice(0, 16);
  const precache = ['./', ...list];
  const template = await readFile(join(root, 'assets', 'sw.js'), 'utf8');
  const lines = template
    .replace('__FABRICSCOPE_CACHE_VERSION__', version)
    .replace('__FABRICSCOPE_PRECACHE__', JSON.stringify(precache))
    // The template's comments and indentation are for readers of assets/sw.js, not for every
    // visitor (sw.js counts in each page's budget).
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('//'));
  // The version and the file list keep lines of their own (e2e/offline.mjs reads them); the
  // code after them is minified too when esbuild is installed.
  const head = lines.filter((l) => /^const (VERSION|FILES) = /.test(l));
  const code = lines.filter((l) => !head.includes(l)).join('\n');
  const sw = [...head, esbuild ? esbuild.transformSync(code, { minify: true, loader: 'js' }).code : code].join('\n');
  await writeFile(join(staging, 'sw.js'), sw);
  say(`sw.js: cache version ${version}, ${precache.length} entries`);
}

/** esbuild from e2e/node_modules, or null when it is not installed (then nothing is minified). */
function loadEsbuild() {
  try {
    return createRequire(join(root, 'e2e', 'package.json'))('esbuild');
  } catch {
    return null;
  }
}

const esbuild = loadEsbuild();

/** Minifies `code` as JS (ES module) or CSS; unchanged without esbuild. */
function minify(code, kind) {
  if (!esbuild) return code;
  return esbuild.transformSync(code, { minify: true, loader: kind, ...(kind === 'js' ? { format: 'esm' } : {}) }).code;
}

async function minifyAssets() {
  if (!esbuild) {
    say('esbuild not installed (npm ci in e2e/): JS and CSS left as Trunk wrote them');
    return;
  }
  let before = 0;
  let after = 0;
  for (const f of (await files(staging)).filter((p) => /\.(js|css)$/.test(p))) {
    const code = await readFile(f, 'utf8');
    const out = minify(code, f.endsWith('.css') ? 'css' : 'js');
    before += code.length;
    after += out.length;
    await writeFile(f, out);
    const integrity = (c) => `sha384-${sha('sha384', c).toString('base64')}`;
    for (const p of pages) {
      const path = join(staging, p);
      const html = await readFile(path, 'utf8');
      await writeFile(path, html.split(integrity(code)).join(integrity(out)));
    }
  }
  say(`minified JS and CSS: ${before} -> ${after} bytes`);
}

/** Copies `page`'s build into this (index.html's) staging directory, its sw.js excepted. */
async function mergePage(page) {
  const from = resolve(root, pageDist(page));
  if (!(await stat(join(from, page)).catch(() => null))) {
    say(`no ${page} build in ${relative(root, from)}: dist/ has no ${page} (scripts/build.sh builds every page)`);
    return;
  }
  const copied = [];
  for (const p of await files(from)) {
    const f = relative(from, p);
    if (f === 'sw.js') continue;
    await mkdir(dirname(join(staging, f)), { recursive: true });
    await copyFile(p, join(staging, f));
    copied.push(f);
  }
  say(`merged ${page}'s build (${copied.length} files) from ${relative(root, from)}`);
}

/** The worker bootstrap (job 4), minified by hand (it is written after esbuild's pass): its
 *  first message names the page's glue and wasm (same origin
 *  only; not in its query, which a service worker's cached response would drop from the
 *  worker's location); wasm-bindgen's init runs the bin's main, which sees no window and serves
 *  the page's jobs. */
const WORKER_JS =
  "onmessage=e=>{onmessage=null;const u=i=>{const x=new URL(e.data[i],location.href);" +
  "if(x.origin!==location.origin)throw new Error('fabricscope worker: the glue and wasm must be same-origin');return x.href};" +
  // A failure is thrown again outside the promise: the page's Worker gets an error event and
  // runs its jobs on the main thread instead.
  "(async()=>{const m=await import(u(0));await m.default({module_or_path:u(1)})})().catch(x=>setTimeout(()=>{throw x}))};\n";

async function writeWorker(page) {
  const name = `worker-${sha('sha256', WORKER_JS).toString('hex').slice(0, 16)}.js`;
  await writeFile(join(staging, name), WORKER_JS);
  const pagePath = join(staging, page);
  const html = await readFile(pagePath, 'utf8');
  if (!html.includes('name="fabricscope-worker"')) {
    await writeFile(pagePath, html.replace('</head>', `<meta name="fabricscope-worker" content="./${name}"/></head>`));
  }
  say(`${page}: worker bootstrap ${name}`);
}

for (const p of pages) await externalizeLoader(p);
await minifyAssets();
for (const p of pages) if (PAGES.find((x) => x.html === p)?.worker) await writeWorker(p);
if (pages.includes('index.html')) {
  for (const p of PAGES) if (p.html !== 'index.html') await mergePage(p.html);
  await writeServiceWorker();
} else {
  say(`${pages.join(', ')}: no sw.js in this run (index.html's run writes one for every page)`);
}
