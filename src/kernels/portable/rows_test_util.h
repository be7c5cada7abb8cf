#pragma once
// Test helpers for row calls (mote/kernels/rows.h): a window operator's whole output computed in
// row ranges, in order, through input and output rings the way a row-streamed stage holds them,
// checked against the whole-tensor kernel's output. Host test code only (portable and dsp tests).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "conv_test_util.h"
#include "mote/kernels/rows.h"

namespace mote::kernels::testing {

// A window operator's row geometry and its row call.
struct RowOp {
  int32_t input_h, output_h;
  size_t in_row_bytes, out_row_bytes;
  int32_t filter_h, stride_h, pad_h, dilation_h;
  // call(input, input_ring, output, output_ring, y_begin, y_end)
  std::function<void(const int8_t*, RowRing, int8_t*, RowRing, int32_t, int32_t)> call;
};

// Random ranges covering [0, rows) in order: single rows, small and large runs.
inline std::vector<std::pair<int32_t, int32_t>> RandomRanges(Rng& rng, int32_t rows) {
  std::vector<std::pair<int32_t, int32_t>> ranges;
  const int mode = rng.Uniform(0, 3);
  for (int32_t y = 0; y < rows;) {
    int32_t n = 1;
    if (mode == 1) n = rng.Uniform(1, 3);
    if (mode == 2) n = rng.Uniform(1, std::max(1, rows / 2));
    if (mode == 3) n = rng.Uniform(1, rows);
    n = std::min(n, rows - y);
    ranges.push_back({y, y + n});
    y += n;
  }
  return ranges;
}

inline constexpr int8_t kSentinel = 0x5b;

// Computes op's whole output in `ranges`, in order, the input in a ring of in_rows rows (refilled
// before each call with the rows that call reads, every other slot poisoned) and the output in a
// ring of out_rows rows (each call's rows checked against `want` right after the call, before
// later calls overwrite them; every other slot must keep its sentinel). rows <= 0: whole maps.
inline void Stream(const RowOp& op, const std::vector<int8_t>& input, const std::vector<int8_t>& want,
            const std::vector<std::pair<int32_t, int32_t>>& ranges, int32_t in_rows,
            int32_t out_rows, Rng& rng, const std::string& label) {
  const int32_t in_slots = in_rows > 0 ? in_rows : op.input_h;
  const int32_t out_slots = out_rows > 0 ? out_rows : op.output_h;
  Guarded in_ring(static_cast<size_t>(in_slots) * op.in_row_bytes);
  Guarded out_ring(static_cast<size_t>(out_slots) * op.out_row_bytes);
  int8_t* in = in_ring.data();
  int8_t* out = out_ring.data();
  for (const auto& [y_begin, y_end] : ranges) {
    const std::string where = label + " rows [" + std::to_string(y_begin) + ", " +
                              std::to_string(y_end) + ") in ring " + std::to_string(in_rows) +
                              " out ring " + std::to_string(out_rows);
    const RowRange need = window_input_rows(op.input_h, op.filter_h, op.stride_h, op.pad_h,
                                            op.dilation_h, y_begin, y_end);
    ASSERT_LE(need.count(), in_slots) << where;
    // Poison every input slot, then put the rows this call reads in their slots.
    const int8_t poison = static_cast<int8_t>(rng.Uniform(-128, 127));
    std::fill(in, in + static_cast<size_t>(in_slots) * op.in_row_bytes, poison);
    for (int32_t r = need.first; r < need.end; ++r) {
      const int32_t slot = in_rows > 0 ? r % in_rows : r;
      std::copy_n(input.begin() + static_cast<ptrdiff_t>(r) * op.in_row_bytes, op.in_row_bytes,
                  in + static_cast<size_t>(slot) * op.in_row_bytes);
    }
    std::fill(out, out + static_cast<size_t>(out_slots) * op.out_row_bytes, kSentinel);
    op.call(in, RowRing{in_rows}, out, RowRing{out_rows}, y_begin, y_end);
    std::vector<bool> written(out_slots, false);
    for (int32_t y = y_begin; y < y_end; ++y) {
      const int32_t slot = out_rows > 0 ? y % out_rows : y;
      written[slot] = true;
      const int8_t* got = out + static_cast<size_t>(slot) * op.out_row_bytes;
      const int8_t* exp = want.data() + static_cast<size_t>(y) * op.out_row_bytes;
      ASSERT_TRUE(std::equal(got, got + op.out_row_bytes, exp)) << where << ": output row " << y;
    }
    for (int32_t slot = 0; slot < out_slots; ++slot) {
      if (written[slot]) continue;
      const int8_t* row = out + static_cast<size_t>(slot) * op.out_row_bytes;
      ASSERT_TRUE(std::all_of(row, row + op.out_row_bytes, [](int8_t v) { return v == kSentinel; }))
          << where << ": wrote output slot " << slot << " outside its rows";
    }
    ASSERT_TRUE(in_ring.Intact()) << where << ": input guard";
    ASSERT_TRUE(out_ring.Intact()) << where << ": output guard";
  }
}

// Streams op in random ranges through the smallest rings the ranges need, larger rings, and the
// whole maps.
inline void StreamAll(const RowOp& op, const std::vector<int8_t>& input, const std::vector<int8_t>& want,
               Rng& rng, const std::string& label) {
  for (int trial = 0; trial < 3; ++trial) {
    const auto ranges = RandomRanges(rng, op.output_h);
    int32_t min_in = 1, min_out = 1;
    for (const auto& [b, e] : ranges) {
      min_in = std::max(min_in, window_input_rows(op.input_h, op.filter_h, op.stride_h, op.pad_h,
                                                  op.dilation_h, b, e).count());
      min_out = std::max(min_out, e - b);
    }
    Stream(op, input, want, ranges, min_in, min_out, rng, label + " minimal rings");
    Stream(op, input, want, ranges, min_in + rng.Uniform(1, 3), min_out + rng.Uniform(1, 3), rng,
           label + " larger rings");
    Stream(op, input, want, ranges, 0, min_out, rng, label + " whole input");
    Stream(op, input, want, ranges, min_in, 0, rng, label + " whole output");
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// A SAME-like or VALID-like top padding and the output height it gives.
inline void PickPadding(Rng& rng, int32_t in, int32_t filter, int32_t stride, int32_t dilation,
                 int32_t* pad, int32_t* out) {
  const int32_t eff = (filter - 1) * dilation + 1;
  if (rng.Chance(50) || in < eff) {  // SAME: TFLite's output size and padding
    *out = (in + stride - 1) / stride;
    const int32_t total = std::max(0, (*out - 1) * stride + eff - in);
    *pad = total / 2;
  } else {  // VALID
    *out = (in - eff) / stride + 1;
    *pad = 0;
  }
}

}  // namespace mote::kernels::testing
