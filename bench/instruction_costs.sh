#!/usr/bin/env bash
# The kernels' measured instruction costs that `--optimize balanced` weighs arenas against
# (targets/cortex-m/instruction_costs.tsv): per operator kind, instructions per MAC (or per
# output element), the in-place depthwise kernel apart, and what one call of a row-streamed stage
# adds; for dsp on cortex-m4 and mve on cortex-m55, counted under QEMU by `mote analyze --measure`
# on the shared MLPerf Tiny models and the firmware build's builder models.
#   bench/instruction_costs.sh [-o FILE] [build-dir] [shared-dir]
#   bench/instruction_costs.sh --check [build-dir] [shared-dir]
# --check compares the table with targets/cortex-m/instruction_costs.tsv and exits 1 when they
# differ (ctest's bench.instruction_costs_table runs it; rewrite the file after a kernel change).
# Kernel rates: the sum of the operators' instructions over the sum of their MACs (elements for
# kinds without MACs), planned with --optimize time (every operator on its whole kernel); the
# in-place rate from --optimize ram's operators that run in place; the row call: the instructions
# --optimize ram's streamed programs add to time's, over the calls of their stages.
set -euo pipefail
cd "$(dirname "$0")/.."
table=targets/cortex-m/instruction_costs.tsv
if [ "${1:-}" = "--check" ]; then
  shift
  now=$(mktemp)
  trap 'rm -f "$now"' EXIT
  "$0" -o "$now" "$@"
  if diff "$table" "$now" >&2; then
    echo "instruction_costs: $table is current" >&2
    exit 0
  fi
  echo "instruction_costs: $table is stale (< recorded, > now); rewrite it with" \
    "bench/instruction_costs.sh -o $table $*" >&2
  exit 1
fi
out=-
if [ "${1:-}" = "-o" ]; then out=$2; shift 2; fi
build=${1:-build}
shared=${2:-../shared}
mote="$build/mote"
[ -x "$mote" ] || { echo "instruction_costs: build $mote first" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

models=()
for stem in mlperf_tiny_kws_dscnn_int8 mlperf_tiny_vww_mobilenetv1_025_96_int8 \
            mlperf_tiny_ic_resnet8_int8 mlperf_tiny_ad_fc_autoencoder_int8; do
  [ -f "$shared/models/$stem.tflite" ] && models+=("$shared/models/$stem.tflite")
done
for stem in operators explicit_pads kws_dscnn_like conv2d_x3; do
  [ -f "$build/firmware-cortex-m4/models/$stem.tflite" ] &&
    models+=("$build/firmware-cortex-m4/models/$stem.tflite")
done
[ ${#models[@]} -gt 0 ] || { echo "instruction_costs: no models in $shared/models" >&2; exit 2; }

{
  echo "# extension	kernel	variant	unit	instructions (per unit; measured by bench/instruction_costs.sh under QEMU: dsp on cortex-m4, mve on cortex-m55)"
  for pair in dsp:cortex-m4 mve:cortex-m55; do
    extension=${pair%%:*}
    cpu=${pair#*:}
    : >"$tmp/rows"
    : >"$tmp/streams"
    for model in "${models[@]}"; do
      name=$(basename "$model" .tflite)
      for preset in time ram; do
        # --float-inputs float: every operator as the model writes it (QUANTIZE's rate too).
        "$mote" analyze "$model" --target "$cpu" --optimize "$preset" --float-inputs float --measure \
          --csv "$tmp/$name.$preset.csv" >"$tmp/$name.$preset.txt" 2>&1 ||
          { cat "$tmp/$name.$preset.txt" >&2; exit 1; }
        # step,type,output_shape,macs,...,kernel_variant,instructions
        awk -F, -v preset="$preset" 'NR > 1 && $1 ~ /^[0-9]+$/ {
          n = split($3, d, "x"); elements = 1; for (i = 1; i <= n; ++i) elements *= d[i]
          print preset, $2, $(NF - 1), $4, elements, $NF }' "$tmp/$name.$preset.csv" >>"$tmp/rows"
      done
      calls=$(sed -n "s/.* stream (\([0-9]*\) row calls.*/\1/p" "$tmp/$name.ram.txt")
      if [ -n "$calls" ]; then
        total() { awk -F, '$1 ~ /^[0-9]+$/ { s += $NF } END { print s }' "$1"; }
        echo "$calls $(total "$tmp/$name.time.csv") $(total "$tmp/$name.ram.csv")" >>"$tmp/streams"
      fi
    done
    awk -v ext="$extension" '
      $1 == "time" && $3 != "in-place" { k = $2; instr[k] += $6; macs[k] += $4; elems[k] += $5 }
      $1 == "ram" && $3 == "in-place" { k = $2; pinstr[k] += $6; pmacs[k] += $4 }
      END {
        for (k in instr) {
          if (macs[k] > 0) printf "%s\t%s\twhole\tmac\t%.3f\n", ext, k, instr[k] / macs[k]
          else { printf "%s\t%s\twhole\telement\t%.3f\n", ext, k, instr[k] / elems[k]
                 other_i += instr[k]; other_e += elems[k] }
        }
        for (k in pinstr) printf "%s\t%s\tin-place\tmac\t%.3f\n", ext, k, pinstr[k] / pmacs[k]
        if (other_e > 0) printf "%s\tother\twhole\telement\t%.3f\n", ext, other_i / other_e
      }' "$tmp/rows" | sort
    awk -v ext="$extension" '{ calls += $1; extra += $3 - $2 }
      END { if (calls > 0) printf "%s\trow call\t-\tcall\t%.0f\n", ext, extra / calls }' "$tmp/streams"
  done
} >"$tmp/table"
if [ "$out" = - ]; then cat "$tmp/table"; else cp "$tmp/table" "$out"; fi
