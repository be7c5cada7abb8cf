#pragma once
// Row-streamed stages: the first, high-resolution layers of a vision model may run row
// by row. Each intermediate feature map of such a stage is held as a ring of the rows its consumer
// still needs, and each window operator computes a range of its output rows per call:
// conv2d_rows (conv.h), depthwise_conv2d_rows (depthwise_conv.h), average_pool_rows, max_pool_rows
// and the streamed global average pool (pooling.h). Their results are the whole-tensor kernels',
// bit for bit. (The elementwise operators read one contiguous row of each input per output row,
// so they need no ring kernel: the existing kernels run on 1-row shapes.)
//
// Which variant computes rows: in a dsp or mve build, conv and depthwise run that variant's row
// kernels (every output row on its code, windows that wrap past the ring's last slot too; shapes
// the variant hands to portable run portable). The pools, and every operator of a portable
// build, run the portable row kernels, but for a streamed global average pool's sums, which run
// the average pool's variant. Embeddable C++17, header only.

#include <stdint.h>

namespace mote {
namespace kernels {

// A batch-1 NHWC map whose rows may be held in a ring: row r lives at
// data + (r mod rows) * row_bytes, row_bytes = width * channels; rows <= 0: the whole map (row r
// at r * row_bytes).
struct RowRing {
  int32_t rows;
  int32_t slot(int32_t y) const;
};

// Where row y of a map sits in a ring of `rows` rows: y mod rows, or y itself for the whole map
// (rows <= 0). The one rule every row kernel and stage addresses rings with.
constexpr int32_t ring_slot(int32_t rows, int32_t y) { return rows > 0 ? y % rows : y; }
inline int32_t RowRing::slot(int32_t y) const { return ring_slot(rows, y); }

// The most filter rows a row call's window may have: the row kernels look up the input rows of
// one output row's window once per output row, in a table of this many pointers on the stack. A
// row call with a taller filter returns without writing, ring or whole map (the compiler does not
// stream such an operator; a global average pool streams through global_average_pool_accumulate).
inline constexpr int32_t kMaxRowWindowRows = 16;

// Input rows [first, end) of a window operator's input.
struct RowRange {
  int32_t first;
  int32_t end;
  int32_t count() const { return end > first ? end - first : 0; }
};

// The input rows that output rows [y_begin, y_end) of a window operator read: from the first to
// one past the last input row inside [0, input_h) under a filter tap of any of those output rows
// (output row y's taps are rows y * stride_h - pad_h + ky * dilation_h, ky < filter_h). An input
// ring holding these rows (at least count() of them) is what a row call needs. Empty ({0, 0}) when
// no tap falls inside the input (or the arguments are nonsense: non-positive filter, stride or
// dilation, or an empty range). Pure; host- and device-callable; O(y_end - y_begin).
inline RowRange window_input_rows(int32_t input_h, int32_t filter_h, int32_t stride_h,
                                  int32_t pad_h, int32_t dilation_h, int32_t y_begin,
                                  int32_t y_end) {
  RowRange r{0, 0};
  if (input_h <= 0 || filter_h <= 0 || stride_h <= 0 || dilation_h <= 0 || y_begin < 0) return r;
  bool any = false;
  for (int32_t y = y_begin; y < y_end; ++y) {
    // int32 like the kernels' own window arithmetic (no 64-bit division on the device).
    const int32_t iy0 = y * stride_h - pad_h;
    // The first and last taps inside [0, input_h).
    const int32_t k0 = iy0 >= 0 ? 0 : (-iy0 + dilation_h - 1) / dilation_h;
    int32_t k1 = iy0 >= input_h ? -1 : (input_h - 1 - iy0) / dilation_h;
    if (k1 > filter_h - 1) k1 = filter_h - 1;
    if (k0 > k1) continue;
    const int32_t first = iy0 + k0 * dilation_h;
    const int32_t last = iy0 + k1 * dilation_h;
    if (!any || first < r.first) r.first = first;
    if (!any || last + 1 > r.end) r.end = last + 1;
    any = true;
  }
  return r;
}

}  // namespace kernels
}  // namespace mote
