#!/usr/bin/env bash
# The deployable site in dist/, every page of scripts/pages.mjs: each page other than index.html
# (its own wasm) into target/<page>-dist first, then index.html into dist/, whose post-build
# hook merges the others' files in and writes one sw.js for all. Trunk builds one HTML file per
# run.
#
#   bash scripts/build.sh          (extra arguments go to every trunk build)
set -euo pipefail
cd "$(dirname "$0")/.."
# Trunk finds wasm-bindgen in ~/.cargo/bin and wasm-opt (binaryen 132) in e2e/node_modules/.bin.
export PATH="$HOME/.cargo/bin:$PWD/e2e/node_modules/.bin:$PATH"
for page in $(node scripts/pages.mjs); do
  trunk build "$page" --html-output "$page" --dist "target/${page%.html}-dist" --release --offline "$@"
done
trunk build index.html --release --offline "$@"
