// The site's pages, each its own Trunk build with its own wasm (Trunk builds one HTML file per
// run), in build order: every page but index.html is built into target/<stem>-dist
// (scripts/build.sh), then index.html into dist/, whose post-build hook merges the others in
// and writes one sw.js for all (scripts/post-build.mjs). e2e/bench.mjs holds each to its own
// budget (350 KB gzipped for the explorer, 400 KB for the others). A new page: its HTML at the root, a [[bin]] in Cargo.toml, one line here.
// `worker: true`: the page runs long jobs in a Web Worker started from its own wasm
// (src/plumbing/worker.rs); post-build.mjs names the worker's bootstrap in it.
//
//   node scripts/pages.mjs        prints the pages built before index.html (for the shell scripts)

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PAGES = [
  { html: 'learn.html', name: 'Learn' },
  { html: 'check.html', name: 'Check a real cluster', worker: true },
  { html: 'compare.html', name: 'Compare and price designs' },
  { html: 'embed.html', name: 'Embed (one chart for an iframe)' },
  { html: 'serving.html', name: 'Serving (the explorer\'s serving panel, in a frame)', worker: true },
  { html: 'congestion.html', name: 'Congestion (the explorer\'s and compare page\'s flow-model panel, in a frame)', worker: true },
  { html: 'measured.html', name: 'explorer as measured (the explorer with a calibration; assets/pages.js opens a calibrated link here)' },
  { html: 'index.html', name: 'explorer' },
];

/** Where a page other than index.html is built before index.html's run merges it. */
export const pageDist = (html) => join('target', html.replace(/\.html$/, '-dist'));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(PAGES.filter((p) => p.html !== 'index.html').map((p) => p.html).join(' '));
}
