#!/usr/bin/env bash
# Instructions per inference (valgrind --tool=callgrind, host build, portable kernels) and RAM
# (arena + runtime_state) of the shared MLPerf Tiny models, next to TensorFlow Lite Micro with
# CMSIS-NN kernels on the same kind of machine (measured once by the project; the TFLM build is
# not part of this repository). Writes Markdown to stdout, or to the file given with -o
# (bench/models.md in the repository).
#   bench/callgrind_models.sh [-o FILE] [build-dir] [shared-dir]
#   bench/callgrind_models.sh --check [build-dir] [shared-dir]
# --check compares the table of bench/models.md with what the runs give now and exits 1 naming
# the rows that differ; instruction counts may differ by 0.1% (ctest's bench.models_table runs it;
# rewrite the file after a kernel or planner change).
# Each inference runs on the model's expected/<name>.input.bin and must reproduce
# expected/<name>.output.bin; the programs are compiled for cortex-m4 (DSP scratch sizes) and
# cortex-m55 (MVE) for the RAM columns. Takes about a minute (valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--check" ]; then
  shift
  now=$(mktemp)
  trap 'rm -f "$now"' EXIT
  "$0" -o "$now" "$@"
  # Instruction counts move by a few hundred from one x86-64 machine to another (libc picks its
  # memcpy and memset for the CPU), so they and their ratio may differ by 0.1%; every other
  # column must be equal.
  if awk -F'|' '
    function count(cell) { gsub(/.*\(|\).*|,/, "", cell); return cell + 0 }
    function near(a, b, tolerance) { d = a - b; if (d < 0) d = -d; return d <= tolerance }
    FNR == NR { if (/^\|/) recorded[++rows] = $0; next }
    /^\|/ {
      n = split(recorded[++seen], was, "|"); split($0, now, "|")
      for (i = 1; i <= n; i++) {
        if (i == 3 && was[3] ~ /\(/) ok = near(count(was[3]), count(now[3]), count(was[3]) / 1000)
        else if (i == 5 && was[5] ~ /^ [0-9.]+ $/) ok = near(was[5], now[5], 0.011)
        else ok = was[i] == now[i]
        if (!ok) { print "< " recorded[seen] "\n> " $0 > "/dev/stderr"; bad = 1; break }
      }
    }
    END { if (seen != rows) { print "rows: " rows " recorded, " seen " now" > "/dev/stderr"; bad = 1 }
          exit bad }' <(cat bench/models.md) <(cat "$now"); then
    echo "callgrind_models: bench/models.md is current (instructions within 0.1%)" >&2
    exit 0
  fi
  echo "callgrind_models: bench/models.md is stale (< recorded, > now); rewrite it with" \
    "bench/callgrind_models.sh -o bench/models.md $*" >&2
  exit 1
fi
out=-
if [ "${1:-}" = "-o" ]; then out=$2; shift 2; fi
build=${1:-build}
shared=${2:-../shared}
exe="$build/bench/mote_model_inference"
[ -x "$exe" ] || { echo "callgrind_models: build $exe first (cmake --build $build)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "callgrind_models: valgrind is not installed" >&2; exit 2; }
models="$shared/models"
[ -d "$models" ] || { echo "callgrind_models: no $models" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name | file stem | TFLM CMSIS-NN instructions (millions) | TFLM arena total (head + tail)
rows=(
  "keyword spotting|mlperf_tiny_kws_dscnn_int8|15.6|24208"
  "visual wake words|mlperf_tiny_vww_mobilenetv1_025_96_int8|46.1|103600"
  "image classification|mlperf_tiny_ic_resnet8_int8|69.7|55920"
  "anomaly detection|mlperf_tiny_ad_fc_autoencoder_int8|1.31|3632"
)

field() { awk -v k="$1" '$1 == k {print $2}' "$2"; }
commas() { echo "$1" | sed -e ':a' -e 's/\B[0-9]\{3\}\>/,&/' -e 'ta'; }
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")

{
  echo "Instructions per inference and RAM, MLPerf Tiny models (bench/callgrind_models.sh)."
  echo
  echo "| model | Mote instructions | TFLM CMSIS-NN | Mote / TFLM | RAM M4 (arena + state) | RAM M55 (arena + state) | TFLM arena | program M4 |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  for row in "${rows[@]}"; do
    IFS='|' read -r name stem tflm_minstr tflm_arena <<<"$row"
    model="$models/$stem.tflite"
    if [ ! -f "$model" ]; then
      echo "callgrind_models: skipping $name, no $model" >&2
      continue
    fi
    io=()
    if [ -f "$models/expected/$stem.input.bin" ]; then
      io=(--input "$models/expected/$stem.input.bin" --expected "$models/expected/$stem.output.bin")
    fi
    echo "callgrind_models: $name" >&2
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" --toggle-collect=mote_bench_inference \
      "$exe" "$model" --target cortex-m4 "${io[@]}" >"$tmp/m4" 2>"$tmp/valgrind"
    instr=$(awk '/^(summary|totals):/ {print $2; exit}' "$tmp/cg")
    "$exe" "$model" --target cortex-m55 "${io[@]}" >"$tmp/m55"
    ram_m4=$(( $(field arena_planned "$tmp/m4") + $(field runtime_state "$tmp/m4") ))
    ram_m55=$(( $(field arena_planned "$tmp/m55") + $(field runtime_state "$tmp/m55") ))
    ratio=$(awk -v a="$instr" -v b="$tflm_minstr" 'BEGIN {printf "%.2f", a / (b * 1e6)}')
    minstr=$(awk -v a="$instr" 'BEGIN {printf "%.2f M", a / 1e6}')
    echo "| $name | $minstr ($(commas "$instr")) | $tflm_minstr M | $ratio | $(commas "$ram_m4") ($(commas "$(field arena_planned "$tmp/m4")") + $(field runtime_state "$tmp/m4")) | $(commas "$ram_m55") | $(commas "$tflm_arena") | $(commas "$(field program_size "$tmp/m4")") |"
  done
  echo
  echo "Instructions: one Executor::run on the host (x86-64, $("${cxx:-c++}" --version | head -1 | sed 's/ (.*)//'), CMake $build_type build),"
  echo "counted by callgrind with --toggle-collect=mote_bench_inference, on expected/<model>.input.bin; every"
  echo "run reproduced expected/<model>.output.bin. TFLM: a recorded peer measurement, not rerun by"
  echo "this script: TFLM 90b983c's host build with CMSIS-NN 99f736a6 kernels (plain C), gcc 12 -O2,"
  echo "one Invoke, measured by the project in July 2026 (that build is not part of this"
  echo "repository). RAM: Mote's planned arena plus runtime_state as the"
  echo "host measures it (64-bit; half on Cortex-M) against TFLM's arena total (head + tail)."
} >"$tmp/table"

if [ "$out" = - ]; then cat "$tmp/table"; else cp "$tmp/table" "$out"; fi
