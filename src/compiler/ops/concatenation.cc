// CONCATENATION of int8 (or int16) tensors along one axis; int8 inputs quantized unlike the
// output are requantized, int16 ones copied as TFLite does. Int8 maps joined along channels or
// width run in row-streamed stages (SqueezeNet's fire modules, FPN and YOLO necks).
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/concatenation.h"

namespace mote::ops {
namespace {

ir::Options read(const TfliteOptions& t) {
  const auto* o =
      t.table<tfl::ConcatenationOptions>(tfl::BuiltinOptions::ConcatenationOptions, true);
  ir::ConcatenationOptions r;
  r.axis = o->axis();
  r.activation = t.activation(o->fused_activation_function());
  return r;
}

void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  const auto& o = std::get<ir::ConcatenationOptions>(op.options);
  tfl::ConcatenationOptionsT t;
  t.axis = o.axis;
  t.fused_activation_function = activation_code(o.activation);
  out.Set(std::move(t));
}

void check(Checker& c) {
  const auto& o = c.options<ir::ConcatenationOptions>();
  // Plain int16 or int32 (no quantization): copied, constants among the inputs too.
  const bool plain = c.plain_move();
  if (plain && o.activation != ir::Activation::kNone) {
    c.fail("fused activation " + std::string(to_string(o.activation)) +
           " on plain integers not supported");
  }
  const DataType type = plain ? c.out().type : c.activation_type();
  const Tensor& output = plain ? c.plain(Checker::kOutput, type) : c.data_output(type);
  const int32_t rank = static_cast<int32_t>(output.shape.size());
  if (o.axis < -rank || o.axis >= rank) {
    c.fail("axis " + std::to_string(o.axis) + " out of range for rank " + std::to_string(rank));
  }
  const size_t axis = static_cast<size_t>(o.axis < 0 ? o.axis + rank : o.axis);
  std::vector<int32_t> expected;
  int64_t total = 0;
  for (size_t k = 0; k < c.op().inputs.size(); ++k) {
    const Tensor& t = plain ? c.plain(k, type) : c.data_input(k, type);
    if (t.shape.size() != output.shape.size()) {
      c.fail(c.in_label(k) + " has rank " + std::to_string(t.shape.size()) + ", expected " +
             std::to_string(rank));
    }
    if (k == 0) expected = t.shape;
    for (size_t i = 0; i < t.shape.size(); ++i) {
      if (i != axis && t.shape[i] != expected[i]) {
        c.fail(c.in_label(k) + " shape " + shape_string(t.shape) + " differs from " +
               shape_string(expected) + " outside axis " + std::to_string(axis));
      }
    }
    total += t.shape[axis];
    if (!plain) c.expect_same_quantization(k);
  }
  if (total > std::numeric_limits<int32_t>::max()) c.fail("concatenated axis too large");
  expected[axis] = static_cast<int32_t>(total);
  c.expect_output_shape(expected);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<ir::ConcatenationOptions>(ctx.op().options);
  const ir::Tensor& output = ctx.out();
  const int32_t rank = static_cast<int32_t>(output.shape.size());
  const int32_t axis = o.axis < 0 ? o.axis + rank : o.axis;
  schema::ConcatenationOptionsT c;
  c.axis = axis;
  if (output.quantization.empty()) {  // plain integers: copied
    out.options.Set(std::move(c));
    return;
  }
  bool any_requant = false;
  std::vector<schema::ConcatRequant> requants;
  for (int32_t t : ctx.op().inputs) {
    const ir::Tensor& input = ctx.tensor(t);
    auto p = kernels::prepare_concatenation_input(
        rank, input.shape.data(), axis, scale_of(input), zero_point_of(input), scale_of(output),
        zero_point_of(output));
    if (p.requantize) {
      const auto m = ctx.multiplier(static_cast<double>(scale_of(input)) /
                                    static_cast<double>(scale_of(output)));
      p.multiplier = m.multiplier;
      p.shift = m.shift;
    }
    any_requant = any_requant || p.requantize;
    requants.emplace_back(p.requantize, -p.input_zero_point,
                          schema::Requant(p.multiplier, p.shift));
  }
  if (any_requant && output.type != ir::DataType::kInt16) c.requant = std::move(requants);
  out.options.Set(std::move(c));
}

// Inside a row-streamed stage: an int8 [1, H, W, C] output joined along W or C from activations
// of its height (check takes no constant), row y of each for row y. Along H or batch an output
// row is a row of one input or another: out.
std::optional<RowReach> row_reach(const ir::Graph& g, const ir::Operator& op, size_t input) {
  const ir::Tensor& out = g.tensors[static_cast<size_t>(op.outputs[0])];
  if (input >= op.inputs.size() || out.type != ir::DataType::kInt8 || out.shape.size() != 4 ||
      out.shape[0] != 1) {
    return std::nullopt;
  }
  const int32_t axis = std::get<ir::ConcatenationOptions>(op.options).axis;
  if (axis != 2 && axis != 3 && axis != -1 && axis != -2) return std::nullopt;
  for (const int32_t t : op.inputs) {
    if (t == ir::kNoTensor) return std::nullopt;
    const ir::Tensor& in = g.tensors[static_cast<size_t>(t)];
    if (in.is_constant || in.type != ir::DataType::kInt8 || in.shape.size() != 4 ||
        in.shape[0] != 1 || in.shape[1] != out.shape[1]) {
      return std::nullopt;
    }
  }
  return RowReach{};
}

void describe(const ir::Graph&, const ir::Operator& op, Description& d) {
  const auto& o = std::get<ir::ConcatenationOptions>(op.options);
  d.add("axis " + std::to_string(o.axis));
  d.json["axis"] = o.axis;
  d.activation(o.activation);
}

}  // namespace

extern const OpDef concatenation{.builtin_code = builtin(tfl::BuiltinOperator::CONCATENATION),
                                 .read_options = read, .write_options = write,
                                 .inputs = {1, SIZE_MAX}, .check = check, .lower = lower,
                                 .int16_activations = true, .describe = describe,
                                 .row_reach = row_reach};

}  // namespace mote::ops
