#pragma once
// What the board and the linker script tell the firmware: the arena region, static RAM, the stack
// and its measured peak, and the exit statuses the platform itself uses.

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace platform {

// Exit statuses of the platform; main()'s own return value is passed through unchanged.
inline constexpr int kExitFault = 3;          // a fault handler ran (message printed first)
inline constexpr int kExitStackOverflow = 4;  // main returned but the stack's guard word was hit

struct MemoryRegion {
  uint8_t* data;
  size_t size;
};

/// The board's large RAM for tensor arenas: from the linker script's NOLOAD `.arena` section to
/// the end of that memory. Never loaded or zeroed, so it costs no start-up time or image size.
MemoryRegion arena_region();

/// Bytes of .data plus .bss in the whole image (runtime, kernels, platform), from the linker's
/// symbols. The stack and the arena are separate sections and not included.
size_t static_ram_bytes();

/// The stack reserved by the linker script (its __stack_size__; mote_add_firmware's STACK_SIZE).
size_t stack_size_bytes();

/// The deepest stack use since start-up (or the last paint_stack()), found by looking for the
/// lowest word that no longer holds the paint pattern. Counts in 4-byte steps.
size_t stack_peak_bytes();

/// How deep the stack is right now (bytes from its top to the caller's stack pointer). Subtract it
/// from stack_peak_bytes() to get what a call made from here used.
size_t stack_depth_bytes();

/// Repaints the unused stack below the caller, so the next stack_peak_bytes() measures only what
/// runs after this call (plus the caller's frames above it).
void paint_stack();

/// True when the lowest stack word was overwritten: the stack probably overflowed.
bool stack_guard_hit();

/// The QEMU board and CPU this image was built for, e.g. "mps3-an547", "cortex-m55".
const char* board_name();
const char* cpu_name();

}  // namespace platform
}  // namespace mote
