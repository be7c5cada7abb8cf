#include "compiler/ir/validate.h"

#include <algorithm>

namespace mote::ir {

int64_t window_output_size(int64_t input, int64_t filter, int64_t stride, int64_t dilation,
                           Padding padding) {
  const int64_t effective = (filter - 1) * dilation + 1;
  if (padding == Padding::kSame) return (input + stride - 1) / stride;
  if (effective > input) return 0;
  return (input - effective + stride) / stride;
}

int64_t window_padding_before(int64_t input, int64_t filter, int64_t stride, int64_t dilation,
                              Padding padding) {
  if (padding == Padding::kValid) return 0;
  const int64_t effective = (filter - 1) * dilation + 1;
  const int64_t out = window_output_size(input, filter, stride, dilation, padding);
  const int64_t total = std::max<int64_t>((out - 1) * stride + effective - input, 0);
  return total / 2;
}

}  // namespace mote::ir
