#pragma once
// What MEAN, SUM and REDUCE_MAX share (TFLite's ReducerOptions family): reading and writing
// keep_dims, the axes input (a constant int32 scalar or list, negative counting from the end,
// repeats allowed) and the output shape it implies.
#include <algorithm>
#include <string>
#include <vector>

#include "compiler/ops/checker.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/mean.h"

namespace mote::ops {

inline ir::Options read_reducer(const TfliteOptions& t) {
  ir::MeanOptions r;
  if (const auto* o = t.table<tfl::ReducerOptions>(tfl::BuiltinOptions::ReducerOptions, false)) {
    r.keep_dims = o->keep_dims();
  }
  return r;
}

inline void write_reducer(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  tfl::ReducerOptionsT t;
  t.keep_dims = std::get<ir::MeanOptions>(op.options).keep_dims;
  out.Set(std::move(t));
}

// The input's dimensions reduced (sorted, distinct, non-negative) and how many elements each
// output reduces.
struct Reduction {
  std::vector<int32_t> axes;
  int64_t count = 1;
};

inline Reduction reduction(const std::vector<int32_t>& shape,
                           const std::vector<int32_t>& axis_values) {
  Reduction r;
  const auto rank = static_cast<int32_t>(shape.size());
  for (int32_t a : axis_values) r.axes.push_back(a < 0 ? a + rank : a);
  std::sort(r.axes.begin(), r.axes.end());
  r.axes.erase(std::unique(r.axes.begin(), r.axes.end()), r.axes.end());
  for (int32_t a : r.axes) r.count *= shape[static_cast<size_t>(a)];
  return r;
}

// Checks the int8 (or int16) input, the axes input (1) and the output's shape; returns the
// reduction.
inline Reduction check_reduction(Checker& c) {
  const auto& o = c.options<ir::MeanOptions>();
  const DataType type = c.activation_type();
  const Tensor& input = c.data_input(0, type);
  c.data_output(type);
  const Tensor& axes = c.param_input(1, DataType::kInt32);
  if (axes.shape.size() > 1) c.fail(c.in_label(1) + " (axes) must be a scalar or a list");
  const int32_t rank = static_cast<int32_t>(input.shape.size());
  for (int32_t a : int32_values(axes)) {
    if (a < -rank || a >= rank) {
      c.fail("axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
    }
  }
  const Reduction r = reduction(input.shape, int32_values(axes));
  std::vector<int32_t> expected;
  for (int32_t d = 0; d < rank; ++d) {
    if (!std::binary_search(r.axes.begin(), r.axes.end(), d)) {
      expected.push_back(input.shape[static_cast<size_t>(d)]);
    } else if (o.keep_dims) {
      expected.push_back(1);
    }
  }
  c.expect_output_shape(expected);
  return r;
}

// MEAN and SUM sum in int32 as TFLite does and requantize the centred sum (at most 255 * count
// in magnitude, int16 32768 * count) by `m`: both must fit the kernel's int32 arithmetic.
inline void check_sum_fits(const Checker& c, int64_t count, kernels::QuantizedMultiplier m,
                           const char* verb) {
  const int64_t element = c.in(0).type == DataType::kInt16 ? 32768 : 255;
  const int64_t bound = count * element;
  if (bound > kernels::kMaxMeanSum) {
    c.fail(std::string(verb) + " " + std::to_string(count) + " elements per output; at most " +
           std::to_string(kernels::kMaxMeanSum / element) + " fit the int32 sum");
  }
  if (m.shift > 30 || (m.shift > 0 && (bound << m.shift) > kernels::kMaxMeanSum)) {
    c.fail("input scale / output scale " +
           num(c.in(0).quantization.scale[0] / c.out().quantization.scale[0]) +
           " is too large: the requantized sum of " + std::to_string(count) +
           " elements overflows int32");
  }
}

// `describe` of the three.
inline void describe_reducer(const ir::Graph&, const ir::Operator& op, Description& d) {
  const bool keep = std::get<ir::MeanOptions>(op.options).keep_dims;
  if (keep) d.add("keep_dims");
  d.json["keep_dims"] = keep;
}

}  // namespace mote::ops
