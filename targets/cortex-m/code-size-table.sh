#!/usr/bin/env bash
# The code the runtime and the kernels bring into a firmware image, per CPU and per code unit, as
# measured in the runner images the firmware build links (their link maps: every input section
# --gc-sections kept, with the archive member it came from). A unit is a source file stem of
# libmote_runtime.a or libmote_kernels.a (runtime/ops/conv.cc, kernels/conv.cc, dsp/conv.cc and
# conv_scratch.cc are all "conv"); its bytes are the most any runner of that CPU keeps of it; its
# operator kinds are those whose registration (k<Kind>Op) runtime/ops/<unit>.cc defines, none for
# the runtime's own units (program, executor, ...), which every image holds. Runner and platform
# code (a user's firmware has its own) are left out.
#   targets/cortex-m/code-size-table.sh [build-dir]            # prints the table (TSV)
#   targets/cortex-m/code-size-table.sh --check [build-dir]    # compares with code_sizes.tsv
# (the ctest code_size_table, in builds with the M55 and M4 firmware and the shared models;
# MOTE_REFRESH_DOCS=1 rewrites the table instead). Measured: cortex-m55 and cortex-m4.
# `mote compile` adds the units of a program's kinds to its flash estimate (src/compiler/target/
# code_size.h). Needs a host build with firmware (build-dir/firmware-<cpu>/run_*.map).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
table="$here/code_sizes.tsv"
if [ "${1:-}" = "--check" ]; then
  shift
  now="$(mktemp)"
  trap 'rm -f "$now"' EXIT
  "$0" "$@" >"$now"
  if diff "$table" "$now" >&2; then exit 0; fi
  if [ -n "${MOTE_REFRESH_DOCS:-}" ]; then
    cp "$now" "$table"
    echo "code-size-table: rewrote $table" >&2
    exit 0
  fi
  echo "code-size-table: $table is stale (< recorded, > now); rewrite it with" \
    "targets/cortex-m/code-size-table.sh ${1:-build} > targets/cortex-m/code_sizes.tsv" >&2
  exit 1
fi
build="${1:-build}"

echo "# cpu	unit	bytes	kinds (measured by targets/cortex-m/code-size-table.sh; .text and .rodata of the runtime and kernels)"
found=0
for cpu in cortex-m4 cortex-m55; do
  dir="$build/firmware-$cpu"
  [ -d "$dir" ] || continue
  maps=("$dir"/run_*.map)
  [ -f "${maps[0]}" ] || continue
  found=1
  # unit -> kinds, from the registrations each runtime/ops object defines.
  declare -A kinds=()
  while IFS= read -r object; do
    unit="$(basename "$object" .cc.obj)"
    list="$(arm-none-eabi-nm -C "$object" | sed -n 's/^[0-9a-f]* [RD] mote::runtime::internal::k\([A-Za-z0-9]*\)Op$/\1/p' | sort | paste -sd, -)"
    [ -n "$list" ] && kinds[$unit]="$list"
  done < <(find "$dir/CMakeFiles" -path '*/src/runtime/ops/*.cc.obj')
  # Kept bytes per unit in each map (a section's line may wrap after a long name); the most of
  # any map per unit.
  for map in "${maps[@]}"; do
    awk -f "$here/map-sections.awk" "$map" | awk -F'\t' '
      match($3, /libmote_(runtime|kernels)\.a\([a-z_0-9]+\.cc\.obj\)/) {
        member = substr($3, RSTART, RLENGTH)
        sub(/^.*\(/, "", member); sub(/\.cc\.obj\)$/, "", member); sub(/_scratch$/, "", member)
        bytes[member] += $2
      }
      END { for (m in bytes) print m, bytes[m] }'
  done | sort -k1,1 -k2,2nr | awk '!seen[$1]++' | while read -r unit bytes; do
    printf '%s\t%s\t%s\t%s\n' "$cpu" "$unit" "$bytes" "${kinds[$unit]:--}"
  done
  unset kinds
done
[ "$found" = 1 ] || { echo "code-size-table: no firmware runner maps in $build/firmware-*" >&2; exit 2; }
