// RELU and RELU6 int8 or int16: TFLite's ReluX, the input requantized to the output's scale and clamped to
// the output's quantized 0 (and 6).
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/relu.h"

namespace mote::ops {
namespace {

kernels::ReluParams params(const ir::Tensor& input, const ir::Tensor& output, bool relu6) {
  return kernels::prepare_relu(scale_of(input), zero_point_of(input), scale_of(output),
                               zero_point_of(output), relu6,
                               output.type == ir::DataType::kInt16);
}

template <bool kRelu6>
void check(Checker& c) {
  c.no_options();
  const DataType type = c.activation_type();
  c.expect_unary_elementwise(type);
  if (!kernels::relu_fits(params(c.in(0), c.out(), kRelu6), type == DataType::kInt16)) {
    c.fail("input scale " + num(scale_of(c.in(0))) + " over output scale " +
           num(scale_of(c.out())) + " overflows the int32 requantization");
  }
}

template <bool kRelu6>
void lower(LowerContext& ctx, schema::OperatorT& out) {
  const kernels::ReluParams p = params(ctx.in(0), ctx.out(), kRelu6);
  schema::ReluOptionsT o;
  o.input_offset = p.input_offset;
  o.output_offset = p.output_offset;
  o.requant = std::make_unique<schema::Requant>(p.multiplier, p.shift);
  o.activation_min = p.act_min;
  o.activation_max = p.act_max;
  out.options.Set(std::move(o));
}

constexpr OpDef relu_def(tfl::BuiltinOperator code, bool relu6) {
  return OpDef{.builtin_code = builtin(code),
               .read_options = read_empty<tfl::BuiltinOptions::NONE>,
               .write_options = write_empty<void>,
               .check = relu6 ? check<true> : check<false>,
               .lower = relu6 ? lower<true> : lower<false>,
               .overlap = elementwise_overlap, .int16_activations = true};
}

}  // namespace

extern const OpDef relu = relu_def(tfl::BuiltinOperator::RELU, false);
extern const OpDef relu6 = relu_def(tfl::BuiltinOperator::RELU6, true);

}  // namespace mote::ops
