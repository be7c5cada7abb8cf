// QUANTIZE (float32 -> int8 / int16; int8 / int16 -> int8 / int16 / int32 and int32 -> int8 /
// int16 with new quantization; uint8 <-> int8 at a graph's edges: a camera's uint8 frame in, a
// uint8 result out) and DEQUANTIZE (int8 / int16 -> float32: a 16x8 model's float edges).
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/overlap.h"
#include "mote/kernels/quantize.h"

namespace mote::ops {
namespace {

void check_quantize(Checker& c) {
  c.no_options();
  const Tensor& input = c.in(0);
  if (input.type != DataType::kFloat32 && input.type != DataType::kInt8 &&
      input.type != DataType::kInt16 && input.type != DataType::kUInt8 &&
      input.type != DataType::kInt32) {
    c.fail(c.in_label(0) + " has type " + std::string(to_string(input.type)) +
           ", expected float32, int8, int16, int32 or uint8");
  }
  // An int16 or int32 input may have any zero point: the requantization subtracts it (keyword
  // spotting models quantize a softmax's int16 output, zero point -32768, to int8; 16x8 models
  // may begin with an int32 graph input requantized to int16).
  if (input.type == DataType::kInt16 || input.type == DataType::kInt32) {
    if (input.is_constant) c.fail(c.in_label(0) + " is a constant; expected an activation");
    c.expect_per_tensor(0);
  } else {
    c.data_input(0, input.type);
  }
  // int16 output: quantized from float (a 16x8 model's float input) or requantized from int8,
  // int16 or int32. uint8 only on one side, as TFLite: uint8 -> int8 and int8 -> uint8.
  const bool int16_output = c.out().type == DataType::kInt16 && input.type != DataType::kUInt8;
  if (input.type == DataType::kInt32 && c.out().type != DataType::kInt8 && !int16_output) {
    c.fail(c.out_label() + " has type " + std::string(to_string(c.out().type)) +
           "; an int32 input is requantized to int8 or int16");
  }
  const bool uint8_output = c.out().type == DataType::kUInt8 && input.type == DataType::kInt8;
  // int32 output: a raw result requantized from int8 or int16 (TFLM's keyword_scrambled models).
  const bool int32_output = c.out().type == DataType::kInt32 &&
                            (input.type == DataType::kInt8 || input.type == DataType::kInt16);
  c.data_output(int16_output   ? DataType::kInt16
                : uint8_output ? DataType::kUInt8
                : int32_output ? DataType::kInt32
                               : DataType::kInt8);
  c.expect_output_shape(input.shape);
  // From int32 the runtime takes any value, with a right shift (a ratio below 1/2) so that the
  // result leaves room for the output zero point.
  if (input.type == DataType::kInt32 &&
      kernels::prepare_requantize(scale_of(input), 0, scale_of(c.out()), 0).shift > -1) {
    c.fail(c.in_label(0) + " scale " + num(scale_of(input)) + " over " + c.out_label() + " scale " +
           num(scale_of(c.out())) + " is 1/2 or more; an int32 input is requantized down only");
  }
}

void check_dequantize(Checker& c) {
  c.no_options();
  // A constant input is a model's constant graph output (an SSD's anchors, which ONNX exports
  // list beside the boxes): its int8 values stay in flash, dequantized into the output each run.
  // An int16 input may have any zero point: a conversion, no int16 arithmetic (TFLite's int8 ->
  // int16 SOFTMAX writes -32768).
  const Tensor& input = c.in(0);
  if (input.is_constant) {
    c.expect_type(0, DataType::kInt8);
    c.expect_per_tensor(0);
  } else if (input.type == DataType::kInt16) {
    c.expect_type(0, DataType::kInt16);
    c.expect_per_tensor(0);
  } else {
    c.data_input(0, DataType::kInt8);
  }
  c.data_output(DataType::kFloat32);
  c.expect_output_shape(input.shape);
}

void lower_quantize(LowerContext& ctx, schema::OperatorT& out) {
  const ir::Tensor& input = ctx.in(0);
  const ir::Tensor& output = ctx.out();
  schema::QuantizeOptionsT q;
  q.output_offset = zero_point_of(output);
  if (input.type != ir::DataType::kFloat32) {  // int8, int16, int32 or uint8: a requantization
    auto p = kernels::prepare_requantize(scale_of(input), zero_point_of(input),
                                         scale_of(output), zero_point_of(output));
    const auto byte = [](ir::DataType t) {
      return t == ir::DataType::kInt8 || t == ir::DataType::kUInt8;
    };
    if (byte(input.type) && byte(output.type)) {  // an int32 input keeps its right shift
      const auto m = ctx.multiplier(static_cast<double>(scale_of(input)) /
                                    static_cast<double>(scale_of(output)));
      p.multiplier = m.multiplier;
      p.shift = m.shift;
    }
    q.input_offset = -zero_point_of(input);
    q.requant = std::make_unique<schema::Requant>(p.multiplier, p.shift);
  }
  out.options.Set(std::move(q));
}

// Every conversion runs front to back, element by element (the runtime's kernels): the output
// may start on its input where its elements are no larger, a float frame quantized in place.
kernels::OverlapRule quantize_overlap(const ir::Graph& graph, const ir::Operator& op, size_t input,
                                      kernels::Extension) {
  const ir::Tensor& in = graph.tensors[static_cast<size_t>(op.inputs[input])];
  const ir::Tensor& out = graph.tensors[static_cast<size_t>(op.outputs[0])];
  if (in.num_elements() != out.num_elements()) return kernels::kNoOverlap;
  return kernels::narrowing_elementwise_overlap(ir::element_size(in.type), ir::element_size(out.type));
}

// Inside a row-streamed stage: an int8 -> int8 requantization (a PReLU written out requantizes
// both its paths), row y for row y; float, uint8, int16 and int32 stay whole.
std::optional<RowReach> quantize_rows(const ir::Graph& graph, const ir::Operator& op,
                                      size_t input) {
  if (graph.tensors[static_cast<size_t>(op.inputs[0])].type != ir::DataType::kInt8) {
    return std::nullopt;
  }
  return elementwise_rows(graph, op, input);
}

}  // namespace

extern const OpDef quantize{.builtin_code = builtin(tfl::BuiltinOperator::QUANTIZE),
                            .read_options = read_empty<tfl::BuiltinOptions::QuantizeOptions>,
                            .write_options = write_empty<tfl::QuantizeOptionsT>, .inputs = {1, 1},
                            .check = check_quantize, .lower = lower_quantize,
                            .overlap = quantize_overlap, .int16_activations = true,
                            .row_reach = quantize_rows};

extern const OpDef dequantize{.builtin_code = builtin(tfl::BuiltinOperator::DEQUANTIZE),
                              .read_options = read_empty<tfl::BuiltinOptions::DequantizeOptions>,
                              .write_options = write_empty<tfl::DequantizeOptionsT>,
                              .inputs = {1, 1}, .check = check_dequantize,
                              .int16_activations = true};

}  // namespace mote::ops
