#pragma once
// int8 ARG_MAX and ARG_MIN along one axis, int32 indices out, with TensorFlow Lite's rule
// (reference_ops::ArgMinMax): the input viewed as [outer, axis_size, inner]; each output is the
// index along the axis of the first element strictly greater (ARG_MAX) or strictly smaller
// (ARG_MIN) than every one before it, so ties go to the lowest index. The raw int8 values are
// compared (a positive scale keeps their order). Embeddable C++17: no heap, no exceptions.

#include <stdint.h>

namespace mote {
namespace kernels {

struct ArgMinMaxParams {
  int32_t outer;      // product of the dimensions before the axis
  int32_t axis_size;  // >= 1
  int32_t inner;      // product of the dimensions after the axis
  bool arg_min;       // false: ARG_MAX
};

// Host-callable: the parameters of an input of `rank` dimensions `dims` reduced along `axis`
// (in [0, rank)).
ArgMinMaxParams prepare_arg_min_max(int32_t rank, const int32_t* dims, int32_t axis,
                                    bool arg_min);

// Output: outer * inner int32 indices, [outer, inner] in order. No scratch.
void arg_min_max(const ArgMinMaxParams& params, const int8_t* input, int32_t* output);

}  // namespace kernels
}  // namespace mote
