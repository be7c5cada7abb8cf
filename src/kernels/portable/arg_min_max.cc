#include "mote/kernels/arg_min_max.h"

namespace mote {
namespace kernels {

ArgMinMaxParams prepare_arg_min_max(int32_t rank, const int32_t* dims, int32_t axis,
                                    bool arg_min) {
  ArgMinMaxParams p{};
  p.outer = 1;
  p.inner = 1;
  for (int32_t d = 0; d < axis; ++d) p.outer *= dims[d];
  p.axis_size = dims[axis];
  for (int32_t d = axis + 1; d < rank; ++d) p.inner *= dims[d];
  p.arg_min = arg_min;
  return p;
}

void arg_min_max(const ArgMinMaxParams& p, const int8_t* input, int32_t* output) {
  for (int32_t o = 0; o < p.outer; ++o) {
    const int8_t* row = input + static_cast<int64_t>(o) * p.axis_size * p.inner;
    for (int32_t i = 0; i < p.inner; ++i) {
      int8_t best = row[i];
      int32_t best_index = 0;
      for (int32_t a = 1; a < p.axis_size; ++a) {
        const int8_t v = row[static_cast<int64_t>(a) * p.inner + i];
        if (p.arg_min ? v < best : v > best) {
          best = v;
          best_index = a;
        }
      }
      output[static_cast<int64_t>(o) * p.inner + i] = best_index;
    }
  }
}

}  // namespace kernels
}  // namespace mote
