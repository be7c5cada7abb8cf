#pragma once
// Limits and window geometry shared by the graph rules (compiler/ops/validate.h) and the passes.

#include <cstdint>

#include "compiler/ir/graph.h"

namespace mote::ir {

// Limits that keep every size computation on an accepted graph far from overflow.
inline constexpr size_t kMaxRank = 6;
inline constexpr int64_t kMaxTensorBytes = (int64_t{1} << 31) - 1;

// Output size of a convolution or pooling window along one axis as TFLite computes it (0 when
// the window does not fit). Inputs must be positive.
int64_t window_output_size(int64_t input, int64_t filter, int64_t stride, int64_t dilation,
                           Padding padding);

// Padding TFLite applies before the first element along one axis (the rest goes after).
int64_t window_padding_before(int64_t input, int64_t filter, int64_t stride, int64_t dilation,
                              Padding padding);

}  // namespace mote::ir
