#pragma once
// The broadcasts the dsp and mve ADD and MUL kernels run besides same-shape inputs: one input of
// the output's shape and the other a run of the output's last elements repeated over its leading
// dimensions (a per-channel operand [1, 1, 1, C], or a scalar). The output is then rows of
// `inner` elements, each the full input's row against the whole repeated run, so the same-shape
// loops run row by row (a scalar: one loop with the operand held). Internal to src/kernels/;
// embeddable C++17.

#include <stddef.h>
#include <stdint.h>

#include <type_traits>

#include "mote/kernels/broadcast.h"

namespace mote {
namespace kernels {

struct BroadcastRows {
  bool rows;      // whether the shape is such a broadcast (same-shape inputs are: one row)
  bool swapped;   // input 1 is the repeated one
  size_t count;   // rows
  int32_t inner;  // elements per row; 1 for a scalar (then count is every element)
};

// Whether `repeated` is the output's trailing dimensions from some dimension on, 1s before it;
// its element count.
inline bool trailing_run(const int32_t* repeated, const int32_t* output, int32_t rank,
                         size_t* elements) {
  int32_t d = 0;
  while (d < rank && repeated[d] == 1) ++d;
  size_t n = 1;
  for (; d < rank; ++d) {
    if (repeated[d] != output[d]) return false;
    n *= static_cast<size_t>(repeated[d]);
  }
  *elements = n;
  return true;
}

inline bool same_dims(const int32_t* a, const int32_t* b, int32_t rank) {
  for (int32_t d = 0; d < rank; ++d) {
    if (a[d] != b[d]) return false;
  }
  return true;
}

inline BroadcastRows broadcast_rows(const BroadcastShape& s) {
  BroadcastRows r{false, false, 0, 0};
  const size_t total = broadcast_output_size(s);
  size_t inner = 0;
  if (same_dims(s.input1, s.output, s.rank) && trailing_run(s.input2, s.output, s.rank, &inner)) {
    r.rows = true;
  } else if (same_dims(s.input2, s.output, s.rank) &&
             trailing_run(s.input1, s.output, s.rank, &inner)) {
    r.rows = true;
    r.swapped = true;
  }
  if (!r.rows || inner == 0 || inner > static_cast<size_t>(INT32_MAX)) return BroadcastRows{};
  r.inner = static_cast<int32_t>(inner);
  r.count = total / inner;
  return r;
}

// What the row kernels take: same-shape inputs (one row), a scalar, or rows of at least four
// elements (shorter ones cost more in per-row calls than the portable loop).
inline bool takes_broadcast_rows(const BroadcastShape& s) {
  const BroadcastRows r = broadcast_rows(s);
  return r.rows && (r.count == 1 || r.inner == 1 || r.inner >= 4);
}

// The kernels' loop over r's rows: elements(std::true_type, count, full, run, out) once when the
// repeated run is a scalar (every element against it), else elements(std::false_type, inner, row,
// run, out_row) row by row.
template <typename Elements>
inline void for_each_row(const BroadcastRows& r, const int8_t* full, const int8_t* run,
                         int8_t* out, const Elements& elements) {
  if (r.inner == 1) {
    elements(std::true_type{}, r.count, full, run, out);
    return;
  }
  const size_t inner = static_cast<size_t>(r.inner);
  for (size_t row = 0; row < r.count; ++row, full += inner, out += inner) {
    elements(std::false_type{}, inner, full, run, out);
  }
}

}  // namespace kernels
}  // namespace mote
