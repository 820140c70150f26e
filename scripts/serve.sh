#!/usr/bin/env bash
# Serves the app at http://127.0.0.1:8080 (release build, offline), rebuilding on change.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh
# Trunk finds wasm-bindgen in ~/.cargo/bin and wasm-opt (binaryen 132) in e2e/node_modules/.bin.
export PATH="$HOME/.cargo/bin:$PWD/e2e/node_modules/.bin:$PATH"
exec trunk serve --release --offline --address 127.0.0.1 --port 8080
