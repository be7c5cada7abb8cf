// Deliberate faults: the fault handlers must print what happened and exit with kExitFault (3)
// rather than lock up or hang. The command line picks the fault:
//   fault.elf undefined | divide | bus | stack | none

#include <stdint.h>

#include "platform/console.h"
#include "platform/semihosting.h"

namespace {

bool is(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

// Unbounded recursion that the compiler can neither unroll nor turn into a loop.
__attribute__((noinline)) uint32_t recurse(volatile uint32_t* previous) {
  if (previous[0] == 0xFFFFFFFFu) return 0;  // never: the seed is zero and frames only grow
  volatile uint32_t frame[16];
  for (uint32_t i = 0; i < 16; ++i) frame[i] = previous[i] + i;
  return recurse(frame) + frame[3];
}

}  // namespace

int main() {
  using namespace mote::platform;
  char line[64];
  command_line(line, sizeof(line));
  const char* kind = line;  // the word after the image name
  while (*kind != '\0' && *kind != ' ') ++kind;
  while (*kind == ' ') ++kind;
  Line().text("fault test: ").text(kind).end();

  if (is(kind, "undefined")) {
    asm volatile("udf #0");
  } else if (is(kind, "divide")) {
    volatile int32_t numerator = 7;
    volatile int32_t denominator = 0;
    Line().text("quotient ").signed_number(numerator / denominator).end();
  } else if (is(kind, "bus")) {
    // Nothing is mapped here on any of the boards (QEMU raises a bus error).
    Line().text("read ").hex(*reinterpret_cast<volatile uint32_t*>(0xF0000000u)).end();
  } else if (is(kind, "stack")) {
    volatile uint32_t seed[16] = {};
    Line().text("sum ").unsigned_number(recurse(seed)).end();
  } else if (!is(kind, "none")) {
    print("usage: fault.elf undefined|divide|bus|stack|none\n");
    return 2;
  }
  print("no fault\n");
  return 0;
}
