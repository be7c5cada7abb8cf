// LEAKY_RELU int8 or int16: TFLite's two multipliers, input/output scale for x >= 0 and alpha times it for
// x < 0; in an ONNX model, int8 is a table of ONNX's float function (LowerContext::onnx_table).
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/leaky_relu.h"

namespace mote::ops {
namespace {

using Options = OneFieldOptions<tfl::BuiltinOptions::LeakyReluOptions, &tfl::LeakyReluOptions::alpha,
                                &tfl::LeakyReluOptionsT::alpha, &ir::LeakyReluOptions::alpha>;

void check(Checker& c) {
  const auto& o = c.options<ir::LeakyReluOptions>();
  c.expect_unary_elementwise(c.activation_type());
  // A negative alpha would make the int8 multiplier negative, which TFLite's kernel does not
  // define either.
  if (!std::isfinite(o.alpha) || o.alpha < 0.0f) {
    c.fail("alpha " + num(o.alpha) + " must be a non-negative number");
  }
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const float alpha = std::get<ir::LeakyReluOptions>(ctx.op().options).alpha;
  if (ctx.graph().round_once && ctx.in(0).type == ir::DataType::kInt8) {
    schema::LeakyReluOptionsT l;
    l.table = std::make_unique<schema::Region>(ctx.onnx_table([alpha](double x) {
      return x >= 0 ? x : static_cast<double>(alpha * static_cast<float>(x));  // float32, as ONNX
    }));
    out.options.Set(std::move(l));
    return;
  }
  const ir::Tensor& input = ctx.in(0);
  const ir::Tensor& output = ctx.out();
  const kernels::LeakyReluParams p = kernels::prepare_leaky_relu(
      scale_of(input), zero_point_of(input), scale_of(output), zero_point_of(output), alpha);
  schema::LeakyReluOptionsT l;
  l.input_offset = p.input_offset;
  l.output_offset = p.output_offset;
  l.identity_requant = std::make_unique<schema::Requant>(p.identity_multiplier, p.identity_shift);
  l.alpha_requant = std::make_unique<schema::Requant>(p.alpha_multiplier, p.alpha_shift);
  out.options.Set(std::move(l));
}

void describe(const ir::Graph&, const ir::Operator& op, Description& d) {
  const float alpha = std::get<ir::LeakyReluOptions>(op.options).alpha;
  d.add("alpha " + num(alpha));
  d.json["alpha"] = alpha;
}

}  // namespace

extern const OpDef leaky_relu{
    .builtin_code = builtin(tfl::BuiltinOperator::LEAKY_RELU), .read_options = Options::read,
    .write_options = Options::write, .check = check, .lower = lower, .int16_activations = true,
    .describe = describe};

}  // namespace mote::ops
