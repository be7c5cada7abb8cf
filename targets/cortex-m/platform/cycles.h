#pragma once
// Instruction counts under QEMU. SysTick counts the CPU clock (CLKSOURCE=1); with
// `qemu-system-arm -icount shift=0` virtual time advances exactly 1 ns per instruction, so
// instructions = ticks * 1e9 / (the board's CPU clock). The resolution is one tick: 40
// instructions on the 25 MHz MPS2 boards, 31.25 on the 32 MHz AN547, 50 on the 20 MHz AN505.
// Without -icount the numbers follow host wall-clock time and mean nothing.
// QEMU models neither the DWT cycle counter nor pipelines: these are instructions, not cycles.

#include <stdint.h>

namespace mote {
namespace platform {

/// Starts SysTick from zero. It counts down from `reload` (at most 2^24 - 1, the default) and its
/// interrupt adds each completed period to a 64-bit total (about 10 instructions per period;
/// tests pass a small reload to exercise that path).
void start_instruction_counter(uint32_t reload = 0x00FFFFFFu);

/// SysTick ticks since start_instruction_counter().
uint64_t systick_ticks();

/// Instructions since start_instruction_counter() (under -icount shift=0).
uint64_t instruction_count();

/// Converts a number of SysTick ticks to instructions. Measuring with systick_ticks() and
/// converting the difference afterwards keeps the 64-bit division out of the measured code.
uint64_t ticks_to_instructions(uint64_t ticks);

/// The clock SysTick counts: the board's CPU clock, in Hz.
uint32_t systick_hz();

}  // namespace platform
}  // namespace mote
