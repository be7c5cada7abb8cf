#pragma once
// The loop every broadcasting binary kernel shares. Private to the portable kernels.
// Output dimensions of size 1 are dropped and neighbouring dimensions in which both inputs behave
// the same (each either repeated or not) are merged, so the common cases (same shape, a
// per-channel operand, a scalar operand) run as one or two plain loops.

#include <stddef.h>
#include <stdint.h>

#include "mote/kernels/broadcast.h"

namespace mote {
namespace kernels {
namespace internal {

// Applies out[i] = op(a[ia], b[ib]) over the broadcast output; op is a functor taking an A and a
// B and returning U.
template <typename A, typename B, typename U, typename Op>
void broadcast_binary(const BroadcastShape& shape, const A* a, const B* b, U* out, const Op& op) {
  int32_t size[kMaxBroadcastRank];
  bool repeat_a[kMaxBroadcastRank];
  bool repeat_b[kMaxBroadcastRank];
  int n = 0;
  for (int32_t d = 0; d < shape.rank; ++d) {
    const int32_t extent = shape.output[d];
    if (extent == 0) return;
    if (extent == 1) continue;
    const bool ra = shape.input1[d] == 1;
    const bool rb = shape.input2[d] == 1;
    if (n > 0 && repeat_a[n - 1] == ra && repeat_b[n - 1] == rb) {
      size[n - 1] *= extent;
    } else {
      size[n] = extent;
      repeat_a[n] = ra;
      repeat_b[n] = rb;
      ++n;
    }
  }
  if (n == 0) {
    out[0] = op(a[0], b[0]);
    return;
  }
  // Element strides of each merged dimension in a and b (0 where repeated).
  ptrdiff_t stride_a[kMaxBroadcastRank];
  ptrdiff_t stride_b[kMaxBroadcastRank];
  ptrdiff_t step_a = 1;
  ptrdiff_t step_b = 1;
  for (int i = n - 1; i >= 0; --i) {
    stride_a[i] = repeat_a[i] ? 0 : step_a;
    stride_b[i] = repeat_b[i] ? 0 : step_b;
    if (!repeat_a[i]) step_a *= size[i];
    if (!repeat_b[i]) step_b *= size[i];
  }
  const int32_t inner = size[n - 1];
  const ptrdiff_t inner_a = stride_a[n - 1];
  const ptrdiff_t inner_b = stride_b[n - 1];
  int32_t index[kMaxBroadcastRank] = {};
  ptrdiff_t offset_a = 0;
  ptrdiff_t offset_b = 0;
  for (;;) {
    const A* pa = a + offset_a;
    const B* pb = b + offset_b;
    if (inner_a == 1 && inner_b == 1) {
      for (int32_t i = 0; i < inner; ++i) out[i] = op(pa[i], pb[i]);
    } else if (inner_a == 0 && inner_b == 1) {
      const A va = pa[0];
      for (int32_t i = 0; i < inner; ++i) out[i] = op(va, pb[i]);
    } else if (inner_a == 1 && inner_b == 0) {
      const B vb = pb[0];
      for (int32_t i = 0; i < inner; ++i) out[i] = op(pa[i], vb);
    } else {
      for (int32_t i = 0; i < inner; ++i) out[i] = op(pa[i * inner_a], pb[i * inner_b]);
    }
    out += inner;
    // Odometer over the outer merged dimensions.
    int d = n - 2;
    for (; d >= 0; --d) {
      offset_a += stride_a[d];
      offset_b += stride_b[d];
      if (++index[d] < size[d]) break;
      offset_a -= stride_a[d] * size[d];
      offset_b -= stride_b[d] * size[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace internal
}  // namespace kernels
}  // namespace mote
