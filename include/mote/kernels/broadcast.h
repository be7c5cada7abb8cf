#pragma once
// Shapes of binary elementwise operators (add, mul, minimum, maximum) with TFLite/numpy
// broadcasting, up to 6 dimensions. Embeddable C++17.

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace kernels {

constexpr int kMaxBroadcastRank = 6;

// Both inputs and the output, right-aligned to `rank` dimensions (a lower-rank input gets leading
// 1s). In every dimension each input's size equals the output's or is 1 (then it is repeated).
// Row-major (NHWC for 4-D tensors); entries at index >= rank are ignored.
struct BroadcastShape {
  int32_t rank;  // 0 (scalars) .. kMaxBroadcastRank
  int32_t input1[kMaxBroadcastRank];
  int32_t input2[kMaxBroadcastRank];
  int32_t output[kMaxBroadcastRank];
};

// Host-callable: the broadcast shape of inputs with dims1[rank1] and dims2[rank2]. Returns false
// (and leaves *shape unspecified) when a rank exceeds kMaxBroadcastRank, a dimension is negative, or
// two dimensions differ with neither being 1.
bool prepare_broadcast_shape(const int32_t* dims1, int32_t rank1, const int32_t* dims2,
                             int32_t rank2, BroadcastShape* shape);

// A shape whose inputs both equal the output (no broadcasting), for `count` elements.
BroadcastShape elementwise_shape(int32_t count);

// Number of output elements.
size_t broadcast_output_size(const BroadcastShape& shape);

}  // namespace kernels
}  // namespace mote
