#include "platform/board.h"

extern "C" {
// Defined by the board's linker script (ld/common.ld).
extern uint32_t __data_start__[], __data_end__[], __bss_start__[], __bss_end__[];
extern uint32_t __stack_limit__[], __stack_top__[];
extern uint8_t __arena_start__[], __arena_region_end__[];
}

namespace mote {
namespace platform {
namespace {

// What unused stack words hold; a word that still does was never written.
constexpr uint32_t kStackPaint = 0x57AC5EEDu;

uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

}  // namespace

MemoryRegion ArenaRegion() {
  return {__arena_start__, static_cast<size_t>(Address(__arena_region_end__) - Address(__arena_start__))};
}

size_t StaticRamBytes() {
  return (Address(__data_end__) - Address(__data_start__)) +
         (Address(__bss_end__) - Address(__bss_start__));
}

size_t StackSizeBytes() { return Address(__stack_top__) - Address(__stack_limit__); }

// In assembly: compiled code could push below the stack pointer it had just read and then
// return through a painted word.
__attribute__((naked, noinline)) void PaintStack() {
  asm volatile(
      "ldr r0, =__stack_limit__\n"
      "ldr r1, =%c0\n"
      "mov r2, sp\n"
      "1: cmp r0, r2\n"
      "   bhs 2f\n"
      "   str r1, [r0], #4\n"
      "   b 1b\n"
      "2: bx lr\n"
      :
      : "i"(kStackPaint));
}

__attribute__((noinline)) size_t StackDepthBytes() {
  uintptr_t sp;
  asm volatile("mov %0, sp" : "=r"(sp));
  return Address(__stack_top__) - sp;
}

size_t StackPeakBytes() {
  const volatile uint32_t* p = __stack_limit__;
  while (p < __stack_top__ && *p == kStackPaint) ++p;
  return Address(__stack_top__) - Address(const_cast<const uint32_t*>(p));
}

bool StackGuardHit() { return *static_cast<volatile uint32_t*>(__stack_limit__) != kStackPaint; }

const char* BoardName() { return MOTE_BOARD; }
const char* CpuName() { return MOTE_CPU_NAME; }

}  // namespace platform
}  // namespace mote
