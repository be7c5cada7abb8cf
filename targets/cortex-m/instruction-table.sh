#!/usr/bin/env bash
# Runs firmware runners under QEMU with -icount and prints Markdown tables of their instruction
# counts (per inference, then per operator), one runner at a time (bench/firmware_instructions.sh
# makes the M55-vs-M4 tables of bench/firmware_instructions.md):
#   instruction-table.sh <board>:<runner.elf> [<board>:<runner.elf>...]
#   e.g. instruction-table.sh mps3-an547:build/firmware-cortex-m55/run_kws.elf \
#                             mps2-an386:build/firmware-cortex-m4/run_kws.elf
# Each runner must exit 0 (outputs equal to the expected bytes when it has them).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
[ $# -ge 1 ] || { sed -n '2,9p' "$0" >&2; exit 2; }

summary="| program | board | cpu | instructions per inference | stack_peak | static_ram |
|---|---|---|---:|---:|---:|"
details=""
for item in "$@"; do
  board="${item%%:*}"
  elf="${item#*:}"
  if ! out="$("$here/run-qemu.sh" --icount --timeout 600 "$board" "$elf")"; then
    echo "instruction-table: $elf failed on $board:" >&2
    echo "$out" >&2
    exit 1
  fi
  read -r name cpu < <(echo "$out" | sed -n 's/^mote runner: \(.*\) on [^ ]* (\(.*\))$/\1 \2/p')
  value() { echo "$out" | sed -n "s/^I mote: $1: \([0-9]*\).*/\1/p" | head -1; }
  summary+=$'\n'"| $name | $board | $cpu | $(value instructions) | $(value stack_peak) | $(value static_ram) |"
  details+=$'\n'"### $name on $cpu ($board)"$'\n\n'"| op | kind | instructions |"$'\n'"|---:|---|---:|"
  details+=$'\n'"$(echo "$out" | sed -n 's/^I mote: op \([0-9]*\) \([A-Za-z0-9_]*\): \([0-9]*\) instructions$/| \1 | \2 | \3 |/p')"$'\n'
done
echo "$summary"
echo "$details"
