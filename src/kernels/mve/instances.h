#pragma once
// The specialised instances of the mve convolution kernels, by number: CONV_2D's four_rows (one
// per count of output pixels, right shifts only or not, depth of at most 16 or not, a depth tail
// or not) and grouped im2col, DEPTHWISE_CONV_2D's row3_pixels (one per count of pixels, stride,
// border or not, window through a table of rows or not) and wide_pixels (the same for 5 or 7
// wide). The kernels call them through tables
// (mve/instance_tables.h) so that a firmware image links only the instances its programs run:
// mote_program_ops asks conv_instances_used and depthwise_instances_used which ones each operator
// may run, and an image's loader asks conv_extension_linked (mote/kernels/conv.h) before it runs a
// program it was not built with. Plain C++17, in every build (the host tool asks too).

#include <stdint.h>

#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"

namespace mote {
namespace kernels {
namespace mve {

// four_rows<kRows, kRight, kSmall, kTail>: rows 1..4 with every flag, and rows 5 (depth > 16).
inline constexpr int kFourRowsInstances = 36;
constexpr int four_rows_instance(int rows, bool right, bool small, bool tail) {
  return rows == 5 ? 32 + (right ? 2 : 0) + (tail ? 1 : 0)
                   : (rows - 1) * 8 + (right ? 4 : 0) + (small ? 2 : 0) + (tail ? 1 : 0);
}

// row3_pixels<kP, kStride, kBorder, kTable>: pixels 1..3, stride 1 or 2 (a table window of fewer
// than three pixels always takes the border variant, so four numbers stay unused).
inline constexpr int kRow3Instances = 24;
constexpr int row3_instance(int pixels, int stride, bool border, bool table) {
  return ((pixels - 1) * 2 + (stride - 1)) * 4 + (border ? 2 : 0) + (table ? 1 : 0);
}

// wide_pixels<kW, kP, kBorder>: the same blocks for filters 5 or 7 wide, stride 1, on windows
// that do not wrap a ring.
inline constexpr int kWideInstances = 12;
constexpr int wide_instance(int width, int pixels, bool border) {
  return (width == 7 ? 6 : 0) + (pixels - 1) * 2 + (border ? 1 : 0);
}

// What one operator may run: bit i of four_rows for four_rows_instance i, of row3 for
// row3_instance i, of wide for wide_instance i.
struct Instances {
  uint64_t four_rows;
  uint32_t row3;
  uint32_t wide;
  bool grouped;  // CONV_2D's grouped im2col
};

// A CONV_2D of `shape` whose shifts are all negative (`right`), whole or row-streamed.
Instances conv_instances_used(const ConvShape& shape, bool right);
// A DEPTHWISE_CONV_2D of `shape`; `ring`: row-streamed, its input rows possibly in a ring whose
// windows wrap (the table variants).
Instances depthwise_instances_used(const DepthwiseShape& shape, bool ring);

}  // namespace mve
}  // namespace kernels
}  // namespace mote
