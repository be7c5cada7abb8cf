#include "platform/cycles.h"

namespace mote {
namespace platform {
namespace {

// SysTick and the interrupt control register (Armv7-M / Armv8-M system control space).
constexpr uintptr_t kSysTickCsr = 0xE000E010u;
constexpr uintptr_t kSysTickRvr = 0xE000E014u;
constexpr uintptr_t kSysTickCvr = 0xE000E018u;
constexpr uintptr_t kIcsr = 0xE000ED04u;

inline volatile uint32_t& register_at(uintptr_t address) {
  return *reinterpret_cast<volatile uint32_t*>(address);
}

constexpr uint32_t kMaxReload = 0x00FFFFFFu;
constexpr uint32_t kCsrEnable = 1u << 0;
constexpr uint32_t kCsrTickInt = 1u << 1;
constexpr uint32_t kCsrClkSource = 1u << 2;  // the processor clock
constexpr uint32_t kIcsrPendStSet = 1u << 26;

}  // namespace

// Ticks of the periods completed so far, added by SysTick_Handler at each reload. 64 bits read
// in two halves: readers re-read until it is stable.
volatile uint64_t g_systick_completed = 0;

void on_systick() { g_systick_completed = g_systick_completed + register_at(kSysTickRvr) + 1u; }

void start_instruction_counter(uint32_t reload) {
  if (reload == 0 || reload > kMaxReload) reload = kMaxReload;
  register_at(kSysTickCsr) = 0;
  register_at(kSysTickRvr) = reload;
  register_at(kSysTickCvr) = 0;  // any write clears the counter; it reloads on the next tick
  g_systick_completed = 0;
  register_at(kSysTickCsr) = kCsrEnable | kCsrTickInt | kCsrClkSource;
  // The counter reads 0 until the first tick loads it; counting from then keeps totals monotonic.
  while (register_at(kSysTickCvr) == 0) {
  }
}

uint64_t systick_ticks() {
  const uint32_t reload = register_at(kSysTickRvr);
  uint64_t completed;
  uint32_t value;
  bool pending;
  do {
    completed = g_systick_completed;
    value = register_at(kSysTickCvr);
    pending = (register_at(kIcsr) & kIcsrPendStSet) != 0;
  } while (completed != g_systick_completed);
  // A reload whose interrupt has not run yet: the counter restarted near the top.
  if (pending && value > reload / 2) completed += reload + 1u;
  return completed + (reload - value);
}

uint32_t systick_hz() { return MOTE_SYSTICK_HZ; }

uint64_t ticks_to_instructions(uint64_t ticks) {
  return ticks * 1000000000ull / MOTE_SYSTICK_HZ;  // the board's CPU clock
}

uint64_t instruction_count() { return ticks_to_instructions(systick_ticks()); }

}  // namespace platform
}  // namespace mote

extern "C" void SysTick_Handler() { mote::platform::on_systick(); }
