#include "mote/kernels/maximum_minimum.h"

#include "broadcast_loop.h"

namespace mote {
namespace kernels {
namespace {

struct MaxOp {
  template <typename T>
  T operator()(T a, T b) const { return a > b ? a : b; }
};
struct MinOp {
  template <typename T>
  T operator()(T a, T b) const { return a < b ? a : b; }
};

}  // namespace

void maximum(const BroadcastShape& shape, const int8_t* input1, const int8_t* input2,
             int8_t* output) {
  internal::broadcast_binary(shape, input1, input2, output, MaxOp{});
}

void minimum(const BroadcastShape& shape, const int8_t* input1, const int8_t* input2,
             int8_t* output) {
  internal::broadcast_binary(shape, input1, input2, output, MinOp{});
}

void maximum(const BroadcastShape& shape, const int16_t* input1, const int16_t* input2,
             int16_t* output) {
  internal::broadcast_binary(shape, input1, input2, output, MaxOp{});
}

void minimum(const BroadcastShape& shape, const int16_t* input1, const int16_t* input2,
             int16_t* output) {
  internal::broadcast_binary(shape, input1, input2, output, MinOp{});
}

}  // namespace kernels
}  // namespace mote
