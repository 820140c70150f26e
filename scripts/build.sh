#!/usr/bin/env bash
# The deployable site in dist/, both pages: learn.html (its own wasm, src/bin/fabricscope-learn)
# into target/learn-dist first, then index.html into dist/, whose post-build hook merges
# Learn's files in and writes one sw.js for both. Trunk builds one HTML file per run.
#
#   bash scripts/build.sh          (extra arguments go to both trunk builds)
set -euo pipefail
cd "$(dirname "$0")/.."
# Trunk finds wasm-bindgen in ~/.cargo/bin and wasm-opt (binaryen 132) in e2e/node_modules/.bin.
export PATH="$HOME/.cargo/bin:$PWD/e2e/node_modules/.bin:$PATH"
trunk build learn.html --html-output learn.html --dist target/learn-dist --release --offline "$@"
trunk build index.html --release --offline "$@"
