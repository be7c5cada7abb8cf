#!/usr/bin/env bash
# Runs one Cortex-M firmware image under QEMU with semihosting and returns its exit status.
#   run-qemu.sh [options] <board> <firmware.elf> [args...]
#     board          QEMU machine: mps3-an547 (Cortex-M55), mps2-an386 (M4), mps2-an500 (M7),
#                    mps2-an505 (M33), mps2-an385 (M3)
#     args           the firmware's command line (semihosting SYS_GET_CMDLINE; first word is the
#                    image's file name)
#   options
#     --icount       run with -icount shift=0: one instruction = 1 ns of virtual time, so SysTick
#                    counts instructions (see platform/cycles.h) and runs are deterministic
#     --timeout S    stop QEMU after S seconds (default 60) and fail with status 124
#     --expect-exit N  succeed (0) only if the firmware exits with status N (for fault tests)
#     --expect-output RE  also require a line of the firmware's output to match the extended
#                    regular expression RE (may be repeated; every one must match)
# The firmware's output (semihosting ":tt") goes to stdout; QEMU's own messages to stderr.
set -uo pipefail

usage() { sed -n '2,16p' "$0" >&2; exit 2; }

icount=0
timeout_s=60
expect=""
patterns=()
while [ $# -gt 0 ]; do
  case "$1" in
    --icount) icount=1 ;;
    --timeout) timeout_s="$2"; shift ;;
    --expect-exit) expect="$2"; shift ;;
    --expect-output) patterns+=("$2"); shift ;;
    -h|--help) usage ;;
    --) shift; break ;;
    -*) echo "run-qemu: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
  shift
done
[ $# -ge 2 ] || usage
board="$1"
elf="$2"
shift 2
if [ ! -f "$elf" ]; then
  echo "run-qemu: no firmware image $elf" >&2
  exit 2
fi

# Semihosting arguments: commas inside one are doubled, QEMU's escape for its option syntax.
semihosting="enable=on,target=native,arg=$(basename "$elf")"
for a in "$@"; do
  semihosting+=",arg=${a//,/,,}"
done

qemu_args=(-machine "$board" -nographic -monitor none -serial null
           -semihosting-config "$semihosting" -kernel "$elf")
if [ "$icount" = 1 ]; then
  qemu_args+=(-icount shift=0)
fi

output=$(mktemp)
trap 'rm -f "$output"' EXIT
timeout --kill-after=5 "$timeout_s" qemu-system-arm "${qemu_args[@]}" </dev/null | tee "$output"
status=${PIPESTATUS[0]}
if [ "$status" = 124 ] || [ "$status" = 137 ]; then
  echo "run-qemu: $elf did not finish within ${timeout_s}s (hung, or locked up after a fault)" >&2
  exit 124
fi
for re in "${patterns[@]}"; do
  if ! grep -Eq -- "$re" "$output"; then
    echo "run-qemu: no output line matches '$re'" >&2
    exit 1
  fi
done
if [ -n "$expect" ]; then
  if [ "$status" = "$expect" ]; then
    echo "run-qemu: exit status $status, as expected"
    exit 0
  fi
  echo "run-qemu: exit status $status, expected $expect" >&2
  exit 1
fi
exit "$status"
