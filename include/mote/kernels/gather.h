#pragma once
// int8 GATHER (TFLite's reference, with batch_dims). Embeddable C++17, no scratch.

#include <stdint.h>

namespace mote {
namespace kernels {

// params [batch, outer, axis_size, inner] (flattened), indices [batch, coords];
// output [batch, outer, coords, inner]:
//   output[b][o][c][:] = input[b][o][indices[b][c]][:]
// An index outside [0, axis_size) (possible only when the indices are computed at run time; the
// loader checks constant ones) writes `fill` over its `inner` elements.
struct GatherParams {
  int32_t batch_size;
  int32_t outer_size;
  int32_t axis_size;
  int32_t inner_size;
  int32_t coord_size;
  int8_t fill;
};

void gather(const GatherParams& params, const int8_t* input, const int32_t* indices,
            int8_t* output);

}  // namespace kernels
}  // namespace mote
