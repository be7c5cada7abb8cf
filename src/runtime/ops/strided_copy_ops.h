#pragma once
// What the data-movement kinds built on the strided-copy kernel share (mote/kernels/
// strided_copy.h): STRIDED_SLICE and SLICE walk SliceOptions; SPLIT, SPLIT_V and UNPACK copy
// parts along an axis into several outputs.

#include "mote/kernels/strided_copy.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {

// Elements per step of dimension `d` of a row-major tensor (the product of the later ones).
inline int64_t row_major_stride(const schema::Tensor& t, size_t d) {
  int64_t s = 1;
  for (size_t i = d + 1; i < rank(t); ++i) s *= dim(t, i);
  return s;
}

// Copies an [outer, run] block: rows `input_row` apart in the input, `output_row` apart in the
// output.
inline void copy_rows(const int8_t* input, int8_t* output, int64_t outer, int64_t run,
                      int64_t input_row, int64_t output_row) {
  kernels::StridedCopyParams p{};
  p.rank = 2;
  p.dims[0] = static_cast<int32_t>(outer);
  p.dims[1] = static_cast<int32_t>(run);
  p.input_strides[0] = static_cast<int32_t>(input_row);
  p.input_strides[1] = 1;
  p.output_strides[0] = static_cast<int32_t>(output_row);
  p.output_strides[1] = 1;
  kernels::strided_copy(kernels::simplify_strided_copy(p), input, output);
}

// SliceOptions of input `x` read into output `y`: per dimension a first index inside it, a
// nonzero step and a count >= 1 whose last index stays inside; as many elements as the output.
Error check_slice(const OpChecker& c);
void invoke_slice(const Op& op);

// SPLIT and SPLIT_V (`keeps_axis`: outputs of the input's rank whose sizes along the axis add up
// to the input's) or UNPACK (outputs without the axis, one per index); int8 or int16 (the
// signature's).
Error check_parts(const OpChecker& c, bool keeps_axis);
void invoke_parts(const Op& op, bool keeps_axis);

}  // namespace mote::runtime::internal
