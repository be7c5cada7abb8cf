#include "mote/kernels/gather.h"

#include <stddef.h>
#include <string.h>

namespace mote {
namespace kernels {

void gather(const GatherParams& p, const int8_t* input, const int32_t* indices, int8_t* output) {
  const size_t inner = static_cast<size_t>(p.inner_size);
  for (int32_t b = 0; b < p.batch_size; ++b) {
    const int32_t* batch_indices = indices + static_cast<size_t>(b) * p.coord_size;
    for (int32_t o = 0; o < p.outer_size; ++o) {
      const int8_t* slab =
          input + (static_cast<size_t>(b) * p.outer_size + o) * p.axis_size * inner;
      for (int32_t c = 0; c < p.coord_size; ++c) {
        const int32_t k = batch_indices[c];
        if (k >= 0 && k < p.axis_size) {
          memcpy(output, slab + static_cast<size_t>(k) * inner, inner);
        } else {
          memset(output, static_cast<uint8_t>(p.fill), inner);
        }
        output += inner;
      }
    }
  }
}

}  // namespace kernels
}  // namespace mote
