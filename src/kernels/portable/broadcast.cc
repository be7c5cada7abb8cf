#include "mote/kernels/broadcast.h"

namespace mote {
namespace kernels {

bool prepare_broadcast_shape(const int32_t* dims1, int32_t rank1, const int32_t* dims2,
                             int32_t rank2, BroadcastShape* shape) {
  if (rank1 < 0 || rank2 < 0 || rank1 > kMaxBroadcastRank || rank2 > kMaxBroadcastRank) {
    return false;
  }
  const int32_t rank = rank1 > rank2 ? rank1 : rank2;
  shape->rank = rank;
  for (int32_t i = 0; i < kMaxBroadcastRank; ++i) {
    shape->input1[i] = shape->input2[i] = shape->output[i] = 1;
  }
  for (int32_t i = 0; i < rank; ++i) {
    const int32_t i1 = i - (rank - rank1);
    const int32_t i2 = i - (rank - rank2);
    const int32_t d1 = i1 >= 0 ? dims1[i1] : 1;
    const int32_t d2 = i2 >= 0 ? dims2[i2] : 1;
    if (d1 < 0 || d2 < 0) return false;
    if (d1 != d2 && d1 != 1 && d2 != 1) return false;
    shape->input1[i] = d1;
    shape->input2[i] = d2;
    // A dimension of 0 against 1 broadcasts to 0 (an empty output), as in numpy.
    shape->output[i] = d1 == 1 ? d2 : d1;
  }
  return true;
}

BroadcastShape elementwise_shape(int32_t count) {
  BroadcastShape shape{};
  shape.rank = 1;
  for (int32_t i = 0; i < kMaxBroadcastRank; ++i) {
    shape.input1[i] = shape.input2[i] = shape.output[i] = 1;
  }
  shape.input1[0] = shape.input2[0] = shape.output[0] = count;
  return shape;
}

size_t broadcast_output_size(const BroadcastShape& shape) {
  size_t size = 1;
  for (int32_t i = 0; i < shape.rank; ++i) size *= static_cast<size_t>(shape.output[i]);
  return size;
}

}  // namespace kernels
}  // namespace mote
