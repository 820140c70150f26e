#!/usr/bin/env bash
# Serves the app at http://127.0.0.1:8080 (release build, offline), rebuilding on change;
# the other pages (scripts/pages.mjs) at /learn.html, /check.html.
# PORT=8092 bash scripts/serve.sh serves on another port.
#
# The development server builds into target/serve-dist, never into dist/: its pages carry
# Trunk's inline autoreload script and a CSP relaxed for it ('unsafe-inline', ws:), so they
# must not be mistaken for the deployable build, which `trunk build --release` writes to dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh
# Trunk finds wasm-bindgen in ~/.cargo/bin and wasm-opt (binaryen 132) in e2e/node_modules/.bin.
export PATH="$HOME/.cargo/bin:$PWD/e2e/node_modules/.bin:$PATH"
# The other pages (each its own wasm) are built once into target/<page>-dist; each rebuild of
# the explorer merges them in (scripts/post-build.mjs). Restart to pick up changes to them.
for page in $(node scripts/pages.mjs); do
  trunk build "$page" --html-output "$page" --dist "target/${page%.html}-dist" --release --offline
done
exec trunk serve --release --offline --dist target/serve-dist --address 127.0.0.1 --port "${PORT:-8080}"
