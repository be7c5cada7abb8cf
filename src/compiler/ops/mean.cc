// MEAN over any axes of an int8 tensor, keep_dims or not, with TFLite's integer rule (1/count
// folded into the requantization multiplier: mote/kernels/mean.h).
#include <algorithm>

#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/mean.h"

namespace mote::ops {
namespace {

ir::Options read(const TfliteOptions& t) {
  ir::MeanOptions r;
  if (const auto* o = t.table<tfl::ReducerOptions>(tfl::BuiltinOptions::ReducerOptions, false)) {
    r.keep_dims = o->keep_dims();
  }
  return r;
}

void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  tfl::ReducerOptionsT t;
  t.keep_dims = std::get<ir::MeanOptions>(op.options).keep_dims;
  out.Set(std::move(t));
}

// The input's dimensions that MEAN reduces (sorted, distinct, non-negative) and how many
// elements each output averages.
struct Reduction {
  std::vector<int32_t> axes;
  int64_t count = 1;
};

Reduction reduction(const std::vector<int32_t>& shape, const std::vector<int32_t>& axis_values) {
  Reduction r;
  const auto rank = static_cast<int32_t>(shape.size());
  for (int32_t a : axis_values) r.axes.push_back(a < 0 ? a + rank : a);
  std::sort(r.axes.begin(), r.axes.end());
  r.axes.erase(std::unique(r.axes.begin(), r.axes.end()), r.axes.end());
  for (int32_t a : r.axes) r.count *= shape[static_cast<size_t>(a)];
  return r;
}

void check(Checker& c) {
  const auto& o = c.options<ir::MeanOptions>();
  const Tensor& input = c.data_input(0);
  const Tensor& output = c.data_output();
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
  // The kernel sums in int32 as TFLite does, and requantizes the centred sum.
  const int64_t bound = r.count * 255;
  if (bound > kernels::kMaxMeanSum) {
    c.fail("averages " + std::to_string(r.count) + " elements per output; at most " +
           std::to_string(kernels::kMaxMeanSum / 255) + " fit the int32 sum");
  }
  const kernels::QuantizedMultiplier m =
      kernels::mean_requant(input.quantization.scale[0], output.quantization.scale[0], r.count);
  if (m.shift > 30 || (m.shift > 0 && (bound << m.shift) > kernels::kMaxMeanSum)) {
    c.fail("input scale / output scale " +
           num(input.quantization.scale[0] / output.quantization.scale[0]) +
           " is too large: the requantized sum of " + std::to_string(r.count) +
           " elements overflows int32");
  }
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<ir::MeanOptions>(ctx.op().options);
  const ir::Tensor& input = ctx.in(0);
  const ir::Tensor& output = ctx.out();
  const Reduction r = reduction(input.shape, int_values(ctx.in(1)));
  const kernels::QuantizedMultiplier m =
      kernels::mean_requant(scale_of(input), scale_of(output), r.count);
  schema::MeanOptionsT t;
  t.axes = r.axes;
  t.keep_dims = o.keep_dims;
  t.input_offset = -zero_point_of(input);
  t.output_offset = zero_point_of(output);
  t.requant = std::make_unique<schema::Requant>(m.multiplier, m.shift);
  t.formula = schema::MeanFormula::Folded;
  out.options.Set(std::move(t));
}

void describe(const ir::Graph&, const ir::Operator& op, Description& d) {
  const bool keep = std::get<ir::MeanOptions>(op.options).keep_dims;
  if (keep) d.add("keep_dims");
  d.json["keep_dims"] = keep;
}

constexpr int8_t kProgramInputs[] = {0};  // the axes are options

}  // namespace

extern const OpDef mean{.builtin_code = builtin(tfl::BuiltinOperator::MEAN), .read_options = read,
                        .write_options = write, .inputs = {2, 2}, .check = check, .lower = lower,
                        .program_inputs = kProgramInputs, .describe = describe};

}  // namespace mote::ops
