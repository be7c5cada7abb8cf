#pragma once
// STRIDED_SLICE's and SLICE's resolution of their constant parameters into what the kernel walks
// (shared with the model builder, which needs the output shape).

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace mote::ops {

// Per input dimension: the first index read, the step and how many indices; and the output shape.
struct ResolvedSlice {
  std::vector<int32_t> begin, stride, count;
  std::vector<int32_t> output_shape;
};

// TFLite's STRIDED_SLICE on `input_shape` (begin, end and strides of one length, the masks of
// `o`). Returns the reason it cannot be run, or "" with `out` filled.
std::string resolve_strided_slice(const std::vector<int32_t>& input_shape,
                                  const std::vector<int32_t>& begin,
                                  const std::vector<int32_t>& end,
                                  const std::vector<int32_t>& strides,
                                  const ir::StridedSliceOptions& o, ResolvedSlice* out);

// TFLite's SLICE (size -1: to the end of the dimension).
std::string resolve_slice(const std::vector<int32_t>& input_shape,
                          const std::vector<int32_t>& begin, const std::vector<int32_t>& size,
                          ResolvedSlice* out);

class Checker;
// A constant 1-D int32 or int64 parameter input (begin, end, strides, size), as int32 values.
std::vector<int32_t> constant_vector(Checker& c, size_t k, const char* what);

// TFLite's reference kernels slice at most 5 dimensions.
constexpr size_t kMaxSliceRank = 5;

}  // namespace mote::ops
