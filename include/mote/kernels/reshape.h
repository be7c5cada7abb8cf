#pragma once
// RESHAPE (and SQUEEZE / EXPAND_DIMS) changes no bytes: the planner aliases the output to the
// input. When it cannot (an input that is also a graph output, a constant input), the runtime
// copies. Embeddable C++17.

#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace mote {
namespace kernels {

// Copies `bytes` bytes; a no-op when the planner aliased output to input. Overlap is allowed.
inline void reshape(const void* input, void* output, size_t bytes) {
  if (input != output) memmove(output, input, bytes);
}

}  // namespace kernels
}  // namespace mote
