#pragma once
// What MEAN, SUM and REDUCE_MAX share at load and run time: the program's axes (sorted,
// distinct, in range), the output shape they imply, and the kernel's parameters.

#include "mote/kernels/mean.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {

// Input rank at most kMaxMeanRank, axes sorted, distinct and in range, and the output the kept
// dimensions (1 for each reduced one with keep_dims). Sets `count`, the elements per output.
inline Error check_reduction(const OpChecker& c, const flatbuffers::Vector<int32_t>* axes,
                             bool keep_dims, int64_t* count) {
  const Tensor &x = *c.in(0), &y = c.out();
  const size_t r = rank(x);
  if (r > static_cast<size_t>(kernels::kMaxMeanRank)) {
    return c.bad("input rank above 6", Error::kUnsupported);
  }
  bool reduced[kernels::kMaxMeanRank];
  if (axes == nullptr || axes->size() > r) return c.bad("axes not sorted, distinct and in range");
  for (size_t d = 0; d < r; ++d) reduced[d] = false;
  for (flatbuffers::uoffset_t k = 0; k < axes->size(); ++k) {
    const int32_t a = axes->Get(k);
    if (a < 0 || static_cast<size_t>(a) >= r || (k > 0 && a <= axes->Get(k - 1))) {
      return c.bad("axes not sorted, distinct and in range");
    }
    reduced[a] = true;
  }
  size_t out_d = 0;
  *count = 1;
  for (size_t d = 0; d < r; ++d) {
    if (reduced[d]) *count *= dim(x, d);
    if (reduced[d] && !keep_dims) continue;
    const int32_t expected = reduced[d] ? 1 : dim(x, d);
    if (out_d >= rank(y) || dim(y, out_d) != expected) {
      return c.bad("output shape inconsistent with axes");
    }
    ++out_d;
  }
  if (out_d != rank(y)) return c.bad("output shape inconsistent with axes");
  return Error::kOk;
}

// The kernel's parameters of input 0 reduced over `axes` (checked by check_reduction).
inline kernels::MeanParams reduction_params(const Op& op, const flatbuffers::Vector<int32_t>* axes,
                                            int32_t input_zero_point, int32_t output_zero_point,
                                            int32_t multiplier, int32_t shift) {
  const Tensor& x = op.in(0);
  int32_t dims[kernels::kMaxMeanRank];
  int32_t axis_values[kernels::kMaxMeanRank];
  for (size_t d = 0; d < rank(x); ++d) dims[d] = dim(x, d);
  const flatbuffers::uoffset_t axis_count = axes->size();
  for (flatbuffers::uoffset_t k = 0; k < axis_count; ++k) axis_values[k] = axes->Get(k);
  return kernels::prepare_mean(static_cast<int32_t>(rank(x)), dims,
                               static_cast<int32_t>(axis_count), axis_values, input_zero_point,
                               output_zero_point, multiplier, shift);
}

}  // namespace mote::runtime::internal
