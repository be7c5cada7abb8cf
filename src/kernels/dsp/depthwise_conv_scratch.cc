// What the dsp DEPTHWISE_CONV_2D kernel handles and needs, beside it (depthwise_conv.cc). In
// every build.
#include "dsp/kernels.h"
#include "mote/kernels/rows.h"

namespace mote {
namespace kernels {
namespace dsp {

// Any depth multiplier (output_c a multiple of input_c, as the runtime checks).
bool depthwise_conv_handles(const DepthwiseShape& shape) {
  return shape.input_c > 0 && shape.output_c >= shape.input_c && shape.output_c % shape.input_c == 0;
}

// Dot products along a window row (single_input_pixel) need the row's taps contiguous: one input
// channel, no dilation in x. A pixel whose window leaves the input (or is not a multiple of four
// wide) is copied into a stack buffer of at most kMaxSingleInputWindow bytes.
bool depthwise_single_input(const DepthwiseShape& s) {
  const int64_t row = (int64_t{s.filter_w} + 3) / 4 * 4;
  return s.input_c == 1 && s.output_c > 1 && s.dilation_w == 1 && s.filter_w >= 1 &&
         s.filter_h >= 1 && s.filter_h <= kMaxRowWindowRows &&
         s.filter_h * row <= kMaxSingleInputWindow;
}

// The filter rearranged and widened to 16 bits: blocks of four channels, rows, groups of four
// columns (zero-padded).
size_t depthwise_conv_scratch_bytes(const DepthwiseShape& s) {
  if (!depthwise_conv_handles(s) || !depthwise_single_input(s)) return 0;
  const size_t channels = (static_cast<size_t>(s.output_c) + 3) / 4 * 4;
  const size_t row = (static_cast<size_t>(s.filter_w) + 3) / 4 * 4;
  return channels * static_cast<size_t>(s.filter_h) * row * 2;
}

OverlapRule depthwise_conv_overlap(const DepthwiseShape& shape) {
  return internal::portable_depthwise_conv_overlap(shape);
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
