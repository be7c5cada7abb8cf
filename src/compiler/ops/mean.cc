// MEAN over axes [1, 2] of an NHWC int8 tensor (TFLite's integer formula).
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

void check(Checker& c) {
  const auto& o = c.options<ir::MeanOptions>();
  const Tensor& input = c.data_input(0);
  c.data_output();
  const Tensor& axes = c.param_input(1, DataType::kInt32);
  if (axes.shape.size() > 1) c.fail(c.in_label(1) + " (axes) must be a scalar or a list");
  const int32_t rank = static_cast<int32_t>(input.shape.size());
  std::vector<bool> reduced(input.shape.size(), false);
  for (int32_t a : int32_values(axes)) {
    if (a < -rank || a >= rank) {
      c.fail("axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
    }
    reduced[a < 0 ? a + rank : a] = true;
  }
  std::vector<int32_t> expected;
  for (size_t i = 0; i < input.shape.size(); ++i) {
    if (!reduced[i]) {
      expected.push_back(input.shape[i]);
    } else if (o.keep_dims) {
      expected.push_back(1);
    }
  }
  c.expect_output_shape(expected);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<ir::MeanOptions>(ctx.op().options);
  const ir::Tensor& input = ctx.in(0);
  const ir::Tensor& output = ctx.out();
  std::vector<int32_t> axes = int_values(ctx.in(1));
  for (int32_t& a : axes) {
    if (a < 0) a += static_cast<int32_t>(input.shape.size());
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  if (input.shape.size() != 4 || axes != std::vector<int32_t>{1, 2}) {
    ctx.fail("MEAN is supported over axes [1, 2] of a 4-D input only");
  }
  const auto p = kernels::prepare_mean(input.shape[0], input.shape[1], input.shape[2],
                                       input.shape[3], scale_of(input), zero_point_of(input),
                                       scale_of(output), zero_point_of(output),
                                       kernels::MeanFormula::kTfLite);
  schema::MeanOptionsT m;
  m.axes = axes;
  m.keep_dims = o.keep_dims;
  m.input_offset = -p.input_zero_point;
  m.output_offset = p.output_zero_point;
  m.requant = std::make_unique<schema::Requant>(p.multiplier, p.shift);
  m.formula = schema::MeanFormula::TfLite;
  out.options.Set(std::move(m));
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
