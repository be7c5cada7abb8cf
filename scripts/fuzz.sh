#!/usr/bin/env bash
# Builds Mote's libFuzzer targets (build-fuzz/: clang, ASan, UBSan), writes their seed corpora with
# the project's own builder and compiler, then runs every target for SECONDS each (default 60).
#   ./scripts/fuzz.sh [--build DIR] [SECONDS] [TARGET...]
#       targets: fuzz_tflite_reader fuzz_onnx_reader (seeded with tests/onnx's QDQ graphs, skipped
#       without python3-onnx) fuzz_program_load fuzz_program_load_dsp (on the dsp kernels)
#       fuzz_planner; --build DIR: a tree configured with -DMOTE_FUZZ=ON already (test.sh
#       --sanitize's build-sanitize/), whose fuzz targets are built instead of build-fuzz/'s
# Exits non-zero when a target finds a crash, a sanitizer report, a timeout (10 s per input) or an
# out-of-memory; the input that did it stays in BUILD/artifacts/<target>/ (replay it with
# BUILD/fuzz/<target> FILE), BUILD being build-fuzz/ or --build's folder. Corpora grow across runs
# in BUILD/corpus/<target>/; logs go to BUILD/logs/<target>.log.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
build=build-fuzz
configure=1
if [ "${1:-}" = --build ]; then
  build=${2:?--build needs a folder}
  configure=0
  shift 2
fi
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi
case "${1:-}" in -h|--help) sed -n '2,12p' "$0"; exit 0 ;; esac
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(fuzz_tflite_reader fuzz_onnx_reader fuzz_program_load fuzz_program_load_dsp fuzz_planner)
fi

if [ "$configure" = 1 ]; then
  # -O1 -g1, as the sanitized suite: the sanitizers' reports keep their lines, the build stays short.
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
    -DMOTE_FUZZ=ON -DMOTE_BUILD_TESTS=OFF -DMOTE_BUILD_BENCH=OFF -DMOTE_BUILD_FIRMWARE=OFF >/dev/null
elif ! grep -q '^MOTE_FUZZ:BOOL=ON$' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "fuzz.sh: $build is not a tree configured with -DMOTE_FUZZ=ON" >&2
  exit 2
fi
cmake --build "$build" --target fuzz
rm -rf "$build/seeds"
"$build/fuzz/make_seeds" "$build/seeds"
# The ONNX reader's seeds: the QDQ test graphs, written with Debian's python3-onnx.
if /usr/bin/python3 -c 'import onnx' 2>/dev/null; then
  /usr/bin/python3 tests/onnx/make_qdq_models.py "$build/seeds/fuzz_onnx_reader" >/dev/null
  rm -f "$build/seeds/fuzz_onnx_reader"/*.json
fi

# Inputs longer than the largest seed only slow the search down.
max_len() {
  case "$1" in
    fuzz_planner) echo 4096 ;;
    *) echo 65536 ;;
  esac
}

# The dsp harness shares the program-load seeds and dictionary.
inputs_of() {
  case "$1" in
    fuzz_program_load_dsp) echo fuzz_program_load ;;
    *) echo "$1" ;;
  esac
}

status=0
for target in "${targets[@]}"; do
  if [ ! -d "$build/seeds/$(inputs_of "$target")" ]; then
    echo "fuzz: $target skipped (no seeds: python3-onnx is missing)"
    continue
  fi
  corpus="$build/corpus/$target"
  artifacts="$build/artifacts/$target"
  log="$build/logs/$target.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$target")"
        -print_final_stats=1 -artifact_prefix="$artifacts/")
  inputs=$(inputs_of "$target")
  if [ -f "fuzz/$inputs.dict" ]; then args+=(-dict="fuzz/$inputs.dict"); fi
  echo "fuzz: $target for ${seconds}s"
  if "$build/fuzz/$target" "${args[@]}" "$corpus" "$build/seeds/$inputs" >"$log" 2>&1; then
    # The last status line and the final counters, e.g. "#123456 DONE cov: 2345 ft: 6789 corp: 321/1Mb".
    grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -1 || true
    grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$log" || true
  else
    status=1
    echo "fuzz: $target FAILED; last lines of $log:" >&2
    tail -40 "$log" >&2
    echo "fuzz: inputs kept in $artifacts/" >&2
  fi
done
exit $status
