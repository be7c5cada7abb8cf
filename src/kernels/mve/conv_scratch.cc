// What the mve CONV_2D kernel handles and needs, beside it (conv.cc). In every build.
#include "mve/instances.h"
#include "mve/kernels.h"
#include "portable/conv_internal.h"

namespace mote {
namespace kernels {
namespace mve {

// Grouped convolution too: input_c a multiple of filter_c (the groups), output_c a multiple of
// the groups. Filters of at most kMaxRowWindowRows rows: the kernel looks up a window's input
// rows in a table of that many (the same code serves whole maps and rings).
bool conv_handles(const ConvShape& shape) {
  return shape.filter_h <= kMaxRowWindowRows &&
         internal::whole_groups(shape.input_c, shape.filter_c, shape.output_c);
}

bool conv_five_columns(const ConvShape& shape) {
  const int64_t depth = int64_t{shape.filter_h} * shape.filter_w * shape.filter_c;
  return shape.filter_c == shape.input_c && depth > 16 && shape.output_w >= 5 &&
         shape.output_w % 4 == 1;
}

// conv_pixels' paths (conv.cc): the four_rows of the depth the rows have (a pointwise pixel's
// channels, else a column), for any count of pixels, and the five-row instance where the depth
// exceeds 16 (pointwise row calls and conv_five_columns use it; more is never linked than asked).
Instances conv_instances_used(const ConvShape& shape, bool right) {
  Instances used{0, 0, 0, false};
  if (!conv_handles(shape)) return used;
  const int64_t depth = conv_scratch_bytes(shape) == 0
                            ? int64_t{shape.input_c}
                            : int64_t{shape.filter_h} * shape.filter_w * shape.filter_c;
  const bool small = depth <= 16;
  const bool tail = depth % 16 != 0;
  for (int rows = 1; rows <= 4; ++rows) {
    used.four_rows |= uint64_t{1} << four_rows_instance(rows, right, small, tail);
  }
  if (!small) used.four_rows |= uint64_t{1} << four_rows_instance(5, right, small, tail);
  used.grouped = shape.filter_c != shape.input_c;
  return used;
}

// Nothing on the 1x1 path (portable's test decides it), else four int8 columns (of one group
// when grouped): the same bytes as portable's two int16 columns; five where a row call's rows
// end in five pixels (conv_five_columns).
size_t conv_scratch_bytes(const ConvShape& shape) {
  if (portable_conv_scratch_bytes(shape) == 0) return 0;
  const size_t columns = conv_five_columns(shape) ? 5 : 4;
  return columns * static_cast<size_t>(shape.filter_h) * shape.filter_w * shape.filter_c;
}

// The blocks of four pixels of conv2d (conv.cc). A shape conv2d hands to portable (an offset
// outside int8) writes in blocks of two, which these rules cover too.
OverlapRule conv_own_overlap(const ConvShape& shape) {
  if (portable_conv_scratch_bytes(shape) == 0) return internal::pointwise_block_overlap(shape, 4, 1);
  return internal::im2col_block_overlap(shape, 4);  // grouped: none
}

// (Blocks of four gathered columns may need less lead than portable's blocks of two.)
OverlapRule conv_overlap(const ConvShape& shape) {
  return internal::stricter(conv_own_overlap(shape), internal::portable_conv_overlap(shape));
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
