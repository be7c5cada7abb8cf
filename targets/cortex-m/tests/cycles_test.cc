// Instruction counting under `qemu-system-arm -icount shift=0`: a loop of a known number of
// instructions must measure as that many (to within the SysTick resolution and the few
// instructions of the measurement itself), equal loops must measure the same, and a small
// SysTick reload (many interrupts) must not lose or add periods.

#include <stdint.h>

#include "platform/board.h"
#include "platform/console.h"
#include "platform/cycles.h"

namespace {

using mote::platform::Line;

// Exactly 2 instructions per iteration (SUBS, BNE) plus the final BX.
__attribute__((naked, noinline)) void spin(uint32_t iterations) {
  asm volatile(
      "1: subs r0, r0, #1\n"
      "   bne 1b\n"
      "   bx lr\n");
}

uint64_t measure(uint32_t iterations) {
  using namespace mote::platform;
  const uint64_t start = systick_ticks();
  spin(iterations);
  return ticks_to_instructions(systick_ticks() - start);
}

int64_t difference(uint64_t a, uint64_t b) {
  return static_cast<int64_t>(a) - static_cast<int64_t>(b);
}

}  // namespace

int main() {
  using namespace mote::platform;
  // One SysTick period in instructions, rounded up: the resolution of a single reading.
  const uint32_t hz = systick_hz();
  const int64_t tick = static_cast<int64_t>((1000000000ull + hz - 1) / hz);
  int failed = 0;
  auto expect = [&failed](bool ok, const char* what) {
    Line().text(ok ? "  ok   " : "  FAIL ").text(what).end();
    if (!ok) ++failed;
  };

  start_instruction_counter();
  constexpr uint32_t kIterations = 100000;
  const uint64_t once = measure(kIterations);
  const uint64_t again = measure(kIterations);
  const uint64_t twice = measure(2 * kIterations);
  Line().text("SysTick clock ").unsigned_number(hz).text(" Hz: one tick is ").unsigned_number(1000000000ull / hz).text(" to ").unsigned_number(tick).text(" instructions").end();
  Line().text("loop of ").unsigned_number(2 * kIterations).text(" instructions measured ").unsigned_number(once).text(", again ").unsigned_number(again).end();
  Line().text("loop of ").unsigned_number(4 * kIterations).text(" instructions measured ").unsigned_number(twice).end();

  // The loop plus the call and one counter read: a few dozen instructions, plus one tick.
  const int64_t overhead = difference(once, 2 * kIterations);
  expect(overhead >= -tick && overhead <= 60 + tick, "a known loop measures its instruction count");
  const int64_t repeat = difference(again, once);
  expect(repeat >= -tick && repeat <= tick, "the same loop measures the same count again");
  const int64_t doubled = difference(twice - once, 2 * kIterations);
  expect(doubled >= -2 * tick && doubled <= 2 * tick, "twice the loop measures twice the count");

  // 1000-tick periods: the 2,000,000-instruction loop spans dozens of interrupts.
  start_instruction_counter(999);
  const uint64_t interrupted = measure(10 * kIterations);
  const uint64_t expected = 2ull * 10 * kIterations;
  Line().text("loop of ").unsigned_number(expected).text(" instructions with 1000-tick SysTick periods measured ").unsigned_number(interrupted).end();
  // Each interrupt adds its handler's instructions (about 35); nothing may be lost.
  const int64_t extra = difference(interrupted, expected);
  const int64_t interrupts = static_cast<int64_t>(expected) / (1000 * (tick - 1)) + 1;
  expect(extra >= -tick && extra <= 64 * interrupts + 60 + tick,
         "counting stays exact across SysTick reloads");

  Line().text(failed == 0 ? "cycles: ok" : "cycles: FAILED").end();
  return failed == 0 ? 0 : 1;
}
