#!/usr/bin/env bash
# Installs whatever the build and tests need and is missing; skips what is already present
# at the right version. Safe to run repeatedly. Versions: ../shared/TOOLCHAIN.md.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130
TRUNK_VERSION=0.21.14
WASM_PACK_VERSION=0.15.1
export PATH="$HOME/.cargo/bin:$PWD/e2e/node_modules/.bin:$PATH"

say() { echo "[ensure-tools] $*"; }

# Rust toolchain and wasm target (rust-toolchain.toml pins the version).
if ! rustup target list --installed | grep -q '^wasm32-unknown-unknown$'; then
  say "adding wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

version_of() { "$1" --version 2>/dev/null | head -n1 || true; }

if [[ "$(version_of wasm-bindgen)" != *"$WASM_BINDGEN_VERSION"* ]]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (several minutes)"
  # No --locked: its lockfile pins a crate the index no longer offers (TOOLCHAIN.md).
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

if [[ "$(version_of wasm-pack)" != *"$WASM_PACK_VERSION"* ]]; then
  say "installing wasm-pack $WASM_PACK_VERSION"
  cargo install wasm-pack --version "$WASM_PACK_VERSION" --force
fi

if [[ "$(version_of trunk)" != *"$TRUNK_VERSION"* ]]; then
  say "installing trunk $TRUNK_VERSION (10+ minutes on 2 cores)"
  cargo install --locked trunk --version "$TRUNK_VERSION" --force
fi

# Chromium and its driver for the browser tests and screenshots (Debian packages).
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  say "installing chromium and chromium-driver"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# wasm-opt (binaryen 132), esbuild (minifies the JS and CSS in the post-build hook) and
# playwright-core for the end-to-end suite, from the npm registry.
if [[ ! -x e2e/node_modules/.bin/wasm-opt ]] || [[ ! -d e2e/node_modules/playwright-core ]] || [[ ! -d e2e/node_modules/esbuild ]]; then
  say "installing e2e node packages (binaryen, esbuild, playwright-core)"
  (cd e2e && npm ci --no-audit --no-fund --loglevel=error)
fi
say "tools ready: $(version_of wasm-bindgen); $(version_of trunk); $(version_of wasm-pack); $(version_of wasm-opt); $(version_of chromium)"
