#pragma once
// Where the portable window kernels (conv, depthwise, pooling) find their input rows and put their
// output rows in row calls (mote/kernels/rows.h): a whole map or a ring. The input rows of an
// output row's window are looked up once per output row into a small table (RowTable), never per
// tap; the output row once per output row (OutputRows). The whole-tensor kernels keep their own
// address arithmetic. Embeddable C++17, header only, internal to src/kernels.

#include <stddef.h>
#include <stdint.h>

#include "mote/kernels/rows.h"

namespace mote {
namespace kernels {
namespace internal {

// The input rows of a row call: row iy at data + (iy mod rows) * row_bytes for a ring (rows > 0),
// data + iy * row_bytes for the whole map (rows <= 0). The pointers of a window's rows are
// computed when an output row's window is asked for (a modulo per filter row for a ring) and kept
// until another output row's is: the kernels ask once per output row, or (conv's im2col, whose
// pairs of pixels may straddle two rows) once per pixel, which refills only where a pair crosses
// into the next row. A Window is valid until the next call of window(). One addressing for rings
// and whole maps keeps one copy of each row kernel in flash. Needs
// filter_h <= kMaxRowWindowRows (row_call_ok checks).
class RowTable {
 public:
  RowTable(const int8_t* data, ptrdiff_t row_bytes, int32_t rows)
      : data_(data), row_bytes_(row_bytes), rows_(rows) {}

  struct Window {
    const int8_t* const* table;  // indexed by filter row; only the rows inside the input are set
    const int8_t* row(int32_t ky) const { return table[ky]; }
  };
  // Output row y's window: filter row ky reads input row iy0 + ky * dilation; filter rows
  // [ky_begin, ky_end) fall inside the input.
  Window window(int32_t y, int32_t iy0, int32_t dilation, int32_t ky_begin, int32_t ky_end) {
    if (tag_ != y) {
      tag_ = y;
      for (int32_t ky = ky_begin; ky < ky_end; ++ky) {
        const int32_t iy = iy0 + ky * dilation;  // inside the input, so >= 0
        table_[ky] = data_ + static_cast<ptrdiff_t>(rows_ > 0 ? iy % rows_ : iy) * row_bytes_;
      }
    }
    return Window{table_};
  }

 private:
  const int8_t* data_;
  ptrdiff_t row_bytes_;
  int32_t rows_;
  int32_t tag_ = -1;  // the output row whose window table_ holds
  const int8_t* table_[kMaxRowWindowRows] = {};
};

// Output rows: the whole map (rows <= 0) or a ring, one modulo per output row.
struct OutputRows {
  int8_t* data;
  ptrdiff_t row_bytes;
  int32_t rows;
  int8_t* row(int32_t y) const {
    return data + static_cast<ptrdiff_t>(ring_slot(rows, y)) * row_bytes;
  }
};

// Whether a row call may run: a batch-1 shape, a range inside [0, output_h), a filter whose rows
// the table holds, an output ring holding the range and an input ring holding every row the range
// reads. Then the call computes output rows [y_begin, y_end).
inline bool row_call_ok(int32_t batches, int32_t input_h, int32_t output_h, int32_t filter_h,
                        int32_t stride_h, int32_t pad_h, int32_t dilation_h, RowRing input_ring,
                        RowRing output_ring, int32_t y_begin, int32_t y_end) {
  if (batches != 1 || y_begin < 0 || y_end > output_h || y_begin >= y_end) return false;
  if (filter_h > kMaxRowWindowRows) return false;
  if (output_ring.rows > 0 && y_end - y_begin > output_ring.rows) return false;
  if (input_ring.rows > 0) {
    const RowRange need =
        window_input_rows(input_h, filter_h, stride_h, pad_h, dilation_h, y_begin, y_end);
    if (need.count() > input_ring.rows) return false;
  }
  return true;
}

}  // namespace internal
}  // namespace kernels
}  // namespace mote
