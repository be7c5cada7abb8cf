#!/usr/bin/env bash
# Writes bench/memory/results.md and results.json: arena bytes per model, kernel extension and
# placement algorithm, with the lower bound, runtime_state and program size (mote_memory_bench).
#   bench/memory/run.sh [build-dir] [shared-dir]     (defaults: build, ../shared)
# Models: the builder's always, <shared-dir>/models/*.tflite when present. Takes seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
shared=${2:-../shared}
exe="$build/bench/mote_memory_bench"
[ -x "$exe" ] || { echo "memory bench: build $exe first (cmake --build $build)" >&2; exit 2; }
"$exe" --shared "$shared" --markdown bench/memory/results.md --json bench/memory/results.json
echo "memory bench: wrote bench/memory/results.md and bench/memory/results.json"
