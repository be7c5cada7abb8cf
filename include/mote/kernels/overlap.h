#pragma once
// Overlap rules: where an operator's output may share bytes with an input that dies at the
// operator (no later operator reads it), derived from the read and write order of the kernel
// variant that runs. The compiler plans with them and the runtime's load check accepts an
// overlapping plan only within them, both through these functions. Embeddable C++17.
//
// Direction: with both buffers in one arena, a kernel that runs forward (its output written from
// the first byte to the last) computes the right result whenever
//     output_offset + lead <= input_offset
// (the output starts at least `lead` bytes before the input; a negative lead lets it start
// -lead bytes after), so a larger lead is always as safe. An output larger than its input gets a
// lead of about (output - input) bytes: the input then sits at the end of the output's region.
// A kernel that runs backward (a pointwise convolution run in chunks of pixels from the last
// chunk to the first, conv2d_backward) is right whenever
//     output_offset >= input_offset + lead
// (a backward rule: the output starts at least `lead` bytes after the input; a larger lead is as
// safe). Placements without shared bytes need no rule.

#include <stddef.h>
#include <stdint.h>

#include "mote/kernels/pooling.h"
#include "mote/kernels/scratch.h"

namespace mote {
namespace kernels {

struct OverlapRule {
  bool allowed;           // false: the output must not share a byte with the input
  int64_t lead;           // meaningful when allowed
  bool backward = false;  // the rule of a backward run: output_offset >= input_offset + lead
  bool exact = false;     // in place: output_offset == input_offset only (lead unused)
};

inline constexpr OverlapRule kNoOverlap = {false, 0};

inline bool overlap_allows(OverlapRule rule, int64_t output_offset, int64_t input_offset) {
  if (!rule.allowed) return false;
  if (rule.exact) return output_offset == input_offset;
  return rule.backward ? output_offset >= input_offset + rule.lead
                       : output_offset + rule.lead <= input_offset;
}

// Kernels that read element i of an input before writing element i of an output of the same
// element count and size, and never read an element below i afterwards (elementwise operators
// over a non-broadcast input, activations, int8 requantize).
inline constexpr OverlapRule kElementwiseOverlap = {true, 0};

// Kernels that convert element by element, front to back, into elements no larger than the
// input's (QUANTIZE float32 -> int8, int16 -> int8): an output starting at or before its input
// writes element i only over input elements up to i, all read by then. A float camera frame
// quantized where it lies needs no second buffer.
inline OverlapRule narrowing_elementwise_overlap(size_t input_element, size_t output_element) {
  return output_element <= input_element ? kElementwiseOverlap : kNoOverlap;
}

// The variant a build for `extension` runs (what the compiler plans), and the variant this
// library runs (what the runtime checks). Input 0 only; the filter and bias are constants.
OverlapRule conv_overlap(const ConvShape& shape, Extension extension);
OverlapRule built_conv_overlap(const ConvShape& shape);
OverlapRule depthwise_conv_overlap(const DepthwiseShape& shape, Extension extension);
OverlapRule built_depthwise_conv_overlap(const DepthwiseShape& shape);
OverlapRule average_pool_overlap(const PoolParams& params, Extension extension);
OverlapRule built_average_pool_overlap(const PoolParams& params);
OverlapRule max_pool_overlap(const PoolParams& params, Extension extension);
OverlapRule built_max_pool_overlap(const PoolParams& params);
// CONV_2D run backward (conv2d_backward; kNoOverlap where conv_runs_backward is false): the same
// for every variant, which run the chunks apart (no chunk's output meets its own input).
OverlapRule conv_backward_overlap(const ConvShape& shape);
// DEPTHWISE_CONV_2D run in place (depthwise_conv2d_in_place; kNoOverlap where
// depthwise_conv_runs_in_place is false): the output at exactly its input's offset, or apart.
OverlapRule depthwise_conv_in_place_overlap(const DepthwiseShape& shape);

namespace internal {

// The rules the variants share (src/kernels/overlap.cc); each variant's table names its own.
//
// Window kernels written element by element in NHWC raster order, output element (p, k) after
// reading input channel k / multiplier of pixel p's window (depthwise, pools; any blocking of
// channels or pixels whose reads come before its writes is as safe).
struct WindowGeometry {
  int32_t batches, input_h, input_w, input_c;
  int32_t output_h, output_w, output_c;  // output_c = input_c * multiplier
  int32_t filter_h, filter_w, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
};
OverlapRule window_raster_overlap(const WindowGeometry& g);
// Window kernels (depth multiplier 1) that write groups of output pixels of a row together:
// columns [first, last] of every row in groups of `size` from `first` (the last one shorter), the
// other columns alone; for each block of `channel_block` channels, that block of every pixel of
// the group is read (all its taps), then written, then the next block.
struct PixelGroups {
  int32_t first, last;  // first > last: every pixel alone
  int32_t size;
};
OverlapRule window_group_overlap(const WindowGeometry& g, const PixelGroups& groups,
                                 int32_t channel_block);
// 1x1 convolution without padding, blocks of `block` output pixels: each step of a block reads
// its input pixels whole and writes a few channels of each pixel; the block's last `tail` bytes
// are written after its last read.
OverlapRule pointwise_block_overlap(const ConvShape& s, int32_t block, int32_t tail);
// im2col convolution (not grouped), blocks of `block` output pixels whose columns are gathered
// before any of the block's outputs is written.
OverlapRule im2col_block_overlap(const ConvShape& s, int32_t block);
// Both rules at once: allowed where both are, the larger lead. A program compiled for an
// extension is also run by the portable kernels (on the host: `mote run`, the compiler's own load
// check), so a variant whose order differs from portable's declares its rule joined with
// portable's.
inline OverlapRule stricter(OverlapRule a, OverlapRule b) {
  if (!a.allowed || !b.allowed) return kNoOverlap;
  return {true, a.lead > b.lead ? a.lead : b.lead};
}
// The portable kernels' rules (dsp shares those whose order is the same).
OverlapRule portable_conv_overlap(const ConvShape& s);
OverlapRule portable_depthwise_conv_overlap(const DepthwiseShape& s);
OverlapRule portable_pool_overlap(const PoolParams& p);

}  // namespace internal
}  // namespace kernels
}  // namespace mote
