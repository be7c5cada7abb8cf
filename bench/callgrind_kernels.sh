#!/usr/bin/env bash
# Instructions per kernel call (callgrind, host build) for every layer of mote_kernel_calls, then
# per MLPerf Tiny model (all its conv / depthwise / fully connected layers, each as often as the
# model has it).
#   bench/callgrind_kernels.sh [build-dir] [extra mote_kernel_calls flags, e.g. --kernel-sums]
set -euo pipefail
build=${1:-build}
shift || true
exe="$build/bench/mote_kernel_calls"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() {  # count <args...>: prints "instructions MACs"
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" --toggle-collect=mote_bench_run_layer \
    "$exe" "$@" >"$out/stdout" 2>"$out/stderr"
  echo "$(grep -E '^summary:' "$out/cg" | awk '{print $2}') $(awk '{s += $4} END {print s}' "$out/stdout")"
}
printf '%-24s %12s %10s %9s\n' layer instructions MACs instr/MAC
for target in $("$exe" --list) model:kws model:vww model:ic model:ad; do
  read -r instr macs < <(count "$@" "$target")
  printf '%-24s %12s %10s %9.2f\n' "$target" "$instr" "$macs" "$(echo "$instr / $macs" | bc -l)"
done
