#pragma once
// How every runner of the shape grid times one call: SysTick read before and after it, as the
// firmware runner times run(), converted to instructions afterwards. The first read comes right
// after a tick, so that a count does not depend on where in a tick (40 instructions on the MPS2
// boards, 31.25 on the AN547) the call happens to start: without it, a change to the code before
// a call moves many counts by one tick though the call runs the same instructions.

#include <stdint.h>

#include "platform/cycles.h"

namespace mote {
namespace bench {
namespace grid {

// Returns just after SysTick's current value changes (a few instructions of polling).
inline void wait_for_tick() {
  volatile const uint32_t* current = reinterpret_cast<volatile const uint32_t*>(0xE000E018u);
  const uint32_t at = *current;
  while (*current == at) {
  }
}

template <typename Call>
uint64_t timed(Call call) {
  wait_for_tick();
  const uint64_t before = platform::systick_ticks();
  call();
  return platform::ticks_to_instructions(platform::systick_ticks() - before);
}

}  // namespace grid
}  // namespace bench
}  // namespace mote
