#!/usr/bin/env bash
# Every test, in pipeline order: native tests of all crates, wasm tests in headless Chromium
# (wasm-pack), the release build of every page (cargo -> wasm-bindgen -> wasm-opt via Trunk,
# scripts/pages.mjs's pages then index.html, scripts/build.sh), and the
# end-to-end suites against that build (explorer; sub-path hosting, CSP and embeds;
# offline). Stops at the first failing stage.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/e2e/node_modules/.bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
# The runner's 20 s default covers browser start-up too; a loaded CI box needs more.
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-120}"

# A clean run builds everything once: incremental caches would only cost disk (GBs).
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
echo "disk free where target/ lives: $(df -h . | awk 'NR==2 {print $4}')"

timings=()
stage() {
  local name="$1"
  shift
  echo
  echo "==== ${name} ===="
  local t0=$SECONDS
  "$@"
  timings+=("$(printf '%-28s %4ds' "$name" $((SECONDS - t0)))")
}

stage "tools" bash scripts/ensure-tools.sh
stage "native tests" cargo test --workspace
stage "wasm tests (headless Chrome)" wasm-pack test --headless --chrome --mode no-install . --test web
stage "wasm tests of Learn (headless Chrome)" wasm-pack test --headless --chrome --mode no-install . --test learn
stage "release build (trunk, every page)" bash scripts/build.sh
stage "e2e (playwright-core)" node e2e/run.mjs
stage "e2e controls (issue 9)" node e2e/controls.mjs
# Budgets (each page's bundle: the explorer at most 350 KB gzipped, the others 400 KB; first chart,
# input-to-paint, longest load task): a bundle over budget fails the run; the timings print OK/OVER and fail only with BENCH_STRICT=1
# (a shared 2-core box is noisy).
stage "bench (budgets)" node e2e/bench.mjs
stage "e2e sub-path, CSP, embed" node e2e/subpath.mjs
stage "e2e compare (designs, link, storage, embeds)" node e2e/compare.mjs
stage "e2e charts (views, cursor, embeds)" node e2e/charts.mjs
stage "e2e check a real cluster (issue 14)" node e2e/check.mjs
stage "e2e your cluster, measured (issue 40)" node e2e/calibrate.mjs
stage "e2e offline (service worker)" node e2e/offline.mjs
stage "e2e no long task (search)" node e2e/longtask.mjs
stage "e2e bill of materials, right-sizer (issue 12)" node e2e/bom.mjs
stage "e2e teach (issue 13)" node e2e/teach.mjs
stage "e2e accessibility (issue 20: contrast, headings, names)" node e2e/a11y.mjs
stage "e2e hardware (issue 23)" node e2e/hardware.mjs
stage "e2e MoE: EP groups and dispatch/combine (issue 22)" node e2e/moe.mjs
stage "e2e serving panel, search and compare overlay (issue 24)" node e2e/serving.mjs
stage "e2e congestion, sharing and failures (issue 25)" node e2e/congestion.mjs
stage "e2e one design, one answer (issue 37)" node e2e/onestep.mjs

echo
echo "==== timings ===="
printf '%s\n' "${timings[@]}"
for wasm in dist/*.wasm; do
  echo "$wasm: $(wc -c <"$wasm") bytes raw, $(gzip -9 -c "$wasm" | wc -c) bytes gzipped"
done
