#pragma once
// Any int8 -> int8 elementwise function as a 256-entry table (from flash). Embeddable C++17.

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace kernels {

// output[i] = table[(uint8_t)input[i]]. Input and output may be the same buffer.
inline void lookup_table(const int8_t table[256], const int8_t* input, int8_t* output,
                         size_t count) {
  for (size_t i = 0; i < count; ++i) output[i] = table[static_cast<uint8_t>(input[i])];
}

}  // namespace kernels
}  // namespace mote
