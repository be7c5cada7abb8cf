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

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

}  // namespace

MemoryRegion arena_region() {
  return {__arena_start__, static_cast<size_t>(address(__arena_region_end__) - address(__arena_start__))};
}

size_t static_ram_bytes() {
  return (address(__data_end__) - address(__data_start__)) +
         (address(__bss_end__) - address(__bss_start__));
}

size_t stack_size_bytes() { return address(__stack_top__) - address(__stack_limit__); }

// In assembly: compiled code could push below the stack pointer it had just read and then
// return through a painted word.
__attribute__((naked, noinline)) void paint_stack() {
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

__attribute__((noinline)) size_t stack_depth_bytes() {
  uintptr_t sp;
  asm volatile("mov %0, sp" : "=r"(sp));
  return address(__stack_top__) - sp;
}

size_t stack_peak_bytes() {
  const volatile uint32_t* p = __stack_limit__;
  while (p < __stack_top__ && *p == kStackPaint) ++p;
  return address(__stack_top__) - address(const_cast<const uint32_t*>(p));
}

bool stack_guard_hit() { return *static_cast<volatile uint32_t*>(__stack_limit__) != kStackPaint; }

const char* board_name() { return MOTE_BOARD; }
const char* cpu_name() { return MOTE_CPU_NAME; }

}  // namespace platform
}  // namespace mote
