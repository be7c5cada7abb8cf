// What the mve DEPTHWISE_CONV_2D kernel handles and needs, beside it (depthwise_conv.cc). In
// every build.
#include "mve/instances.h"
#include "mve/kernels.h"
#include "portable/window.h"

namespace mote {
namespace kernels {
namespace mve {

// Any depth multiplier (output_c a multiple of input_c). Filters of at most kMaxRowWindowRows
// rows: the kernel looks up a window's input rows in a table of that many (the same code serves
// whole maps and rings).
bool depthwise_conv_handles(const DepthwiseShape& shape) {
  return shape.input_c > 0 && shape.output_c >= shape.input_c &&
         shape.output_c % shape.input_c == 0 && shape.filter_h <= kMaxRowWindowRows;
}

// Dot products along a window row need its taps contiguous: one input channel and no dilation
// in x (a window row is then contiguous input bytes). The filter is rearranged with 16-bit
// gather offsets (seven channels' strides).
bool depthwise_single_input(const DepthwiseShape& s) {
  return s.input_c == 1 && s.output_c > 1 && s.output_c <= 9362 && s.dilation_w == 1 &&
         s.filter_w >= 1 && s.filter_w <= kMaxSingleInputWidth;
}

// The rearranged filter: blocks of four channels, rows, chunks of eight columns (zero-padded).
size_t depthwise_conv_scratch_bytes(const DepthwiseShape& s) {
  if (!depthwise_conv_handles(s) || !depthwise_single_input(s)) return 0;
  const size_t channels = (static_cast<size_t>(s.output_c) + 3) / 4 * 4;
  const size_t row = (static_cast<size_t>(s.filter_w) + 7) / 8 * 8;
  return channels * static_cast<size_t>(s.filter_h) * row;
}

// The groups depthwise_conv2d writes together (depthwise_conv.cc): in threes from column 0,
// borders included, where depthwise_in_threes; otherwise in fours over the columns whose windows
// are whole in x, one pixel at a time outside them.
namespace {

OverlapRule own_overlap(const DepthwiseShape& s) {
  const internal::WindowGeometry g{s.batches,  s.input_h,  s.input_w,  s.input_c,  s.output_h,
                                   s.output_w, s.output_c, s.filter_h, s.filter_w, s.stride_h,
                                   s.stride_w, s.pad_h,    s.pad_w,    s.dilation_h,
                                   s.dilation_w};
  if (s.output_c != s.input_c) return internal::window_raster_overlap(g);
  if (depthwise_in_threes(s)) {
    // (Blocks of three whose border mask has no body of its own run one pixel at a time, in
    // portable's raster order: depthwise_conv_overlap joins portable's rule. Joining it here too
    // cost Program::load about 2,000 instructions a layer on the M55.)
    return internal::window_group_overlap(g, {0, s.output_w - 1, 3}, 4);
  }
  // Columns whose windows lie inside in x: ix0 >= 0 and ix0 + (filter_w - 1) * dilation_w < w.
  internal::PixelGroups whole{0, -1, 4};
  if (s.stride_w > 0) {
    const int64_t reach = int64_t{s.filter_w - 1} * s.dilation_w;
    int64_t first = (int64_t{s.pad_w} + s.stride_w - 1) / s.stride_w;
    if (s.pad_w < 0) first = 0;
    const int64_t room = int64_t{s.input_w} - 1 - reach + s.pad_w;  // ix0 + pad_w <= room
    int64_t last = room < 0 ? -1 : room / s.stride_w;
    if (last > s.output_w - 1) last = s.output_w - 1;
    if (first <= last) whole = {static_cast<int32_t>(first), static_cast<int32_t>(last), 4};
  }
  return internal::window_group_overlap(g, whole, 4);
}

// The blocks of three one image of `s` runs (depthwise_conv.cc: spaced_row, and with `table` the
// rows whose window wraps a ring, 3-wide only): a border variant where a position of the block
// lies outside the input in x. Into row3 (3-wide) or wide (5 and 7).
void blocks_of_three(const DepthwiseShape& s, bool table, Instances* used) {
  if (!depthwise_in_threes(s) || (table && s.filter_w != 3)) return;
  for (int64_t x = 0; x < s.output_w; x += 3) {
    const int count = s.output_w - x < 3 ? static_cast<int>(s.output_w - x) : 3;
    const int64_t first = x * s.stride_w - s.pad_w;
    const int64_t last = first + int64_t{count - 1} * s.stride_w + s.filter_w - 1;
    const bool border = first < 0 || last >= s.input_w;
    if (s.filter_w != 3) {
      used->wide |= uint32_t{1} << wide_instance(s.filter_w, count, border);
    } else {
      used->row3 |= uint32_t{1}
                    << row3_instance(count, s.stride_w, border || (table && count < 3), table);
    }
  }
}

}  // namespace

Instances depthwise_instances_used(const DepthwiseShape& s, bool ring) {
  Instances used{0, 0, 0, false};
  if (!depthwise_conv_handles(s)) return used;
  // The whole map runs a column as its row; row calls keep the shape.
  blocks_of_three(internal::depthwise_column_as_row(s), false, &used);
  if (ring) {
    blocks_of_three(s, false, &used);
    blocks_of_three(s, true, &used);
  }
  return used;
}

// The row calls keep the shape, the whole map may run it as a row: both orders' rule.
OverlapRule depthwise_conv_own_overlap(const DepthwiseShape& s) {
  const DepthwiseShape whole = internal::depthwise_column_as_row(s);
  const OverlapRule rule = own_overlap(s);
  return whole.input_h == s.input_h ? rule : internal::stricter(rule, own_overlap(whole));
}

OverlapRule depthwise_conv_overlap(const DepthwiseShape& s) {
  return internal::stricter(depthwise_conv_own_overlap(s),
                            internal::portable_depthwise_conv_overlap(s));
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
