// Float inputs held quantized, end to end: builder models whose float32 input a QUANTIZE reads
// first, compiled for a scalar, a DSP and an MVE CPU, streamed and not, their floats written
// through Executor::write_input (HostProgram), compared with the same model compiled with the
// float input in the arena and the QUANTIZE run; the inputs that must stay float stay.

#include "compiler/passes/quantized_inputs.h"

#include <gtest/gtest.h>

#include <cstring>

#include "compiler/builder/model_builder.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "mote/runtime/executor.h"
#include "mote/schema/mote_generated.h"

namespace mote::passes {
namespace {

using builder::ModelBuilder;
using builder::TensorId;
using ir::Activation;
using ir::Padding;

constexpr const char* kCpus[] = {"cortex-m0plus", "cortex-m4", "cortex-m55"};

pipeline::Compiled compile(const ir::Graph& g, const char* cpu, bool quantize, bool stream) {
  pipeline::CompileOptions options;
  options.plan.cpu = cpu;
  options.plan.quantize_float_inputs = quantize;
  options.plan.stream = stream;
  return pipeline::compile(g, options);
}

int count_quantizes(const std::vector<uint8_t>& program) {
  int n = 0;
  for (const schema::Operator* op : *schema::GetProgram(program.data())->operators()) {
    n += op->kind() == schema::OpKind::Quantize;
  }
  return n;
}

// Floats that hit every rounding case of the QUANTIZE: halves, saturation both ways, zero.
std::vector<uint8_t> float_bytes(size_t count, float scale) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) {
    const int k = static_cast<int>(i % 601) - 300;  // -300 .. 300 steps of half a scale
    values[i] = static_cast<float>(k) * 0.5f * scale;
  }
  std::vector<uint8_t> bytes(count * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// A camera-like model: float32 [1, 16, 12, 3] quantized to int8 (scale 1/128, zero point -5),
// a stride-2 convolution, a depthwise and a 1x1 one.
ir::Graph camera_model() {
  ModelBuilder b(3);
  const TensorId x = b.add_input({1, 16, 12, 3});
  const TensorId q = b.add_quantize(x, 1.0f / 128, -5);
  TensorId y = b.add_conv2d(q, 8, 3, 3, 2, Padding::kSame, Activation::kRelu6);
  y = b.add_depthwise(y, 3, 3, 1, Padding::kSame, Activation::kRelu6);
  b.mark_output(b.add_conv2d(y, 6, 1, 1, 1, Padding::kValid));
  return b.build();
}

TEST(QuantizedInputs, GiveTheModelsBytesInAQuarterOfTheInputsArena) {
  const ir::Graph g = camera_model();
  const QuantizedInputs held = quantize_float_inputs(g);
  ASSERT_EQ(held.quantized, 1);
  EXPECT_EQ(held.graph.operators.size(), g.operators.size() - 1);
  EXPECT_EQ(held.model_index, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(held.graph.inputs[0], g.operators[0].outputs[0]);
  EXPECT_EQ(held.graph.float_inputs, std::vector<bool>{true});
  const std::vector<uint8_t> input = float_bytes(16 * 12 * 3, 1.0f / 128);
  const pipeline::Compiled reference = compile(g, "cortex-m0plus", false, false);
  const std::vector<uint8_t> expected =
      pipeline::HostProgram(reference.program).run({input}).outputs.at(0);
  for (const char* cpu : kCpus) {
    for (const bool stream : {false, true}) {
      SCOPED_TRACE(std::string(cpu) + (stream ? " streamed" : ""));
      const pipeline::Compiled c = compile(g, cpu, true, stream);
      EXPECT_EQ(c.planned.quantized_inputs, 1);
      EXPECT_EQ(c.planned.float_input_bytes, 16u * 12 * 3 * 4);
      EXPECT_EQ(count_quantizes(c.program), 0);
      // Steps still name the model's operators.
      EXPECT_EQ(c.planned.order.order, (std::vector<int32_t>{1, 2, 3}));
      EXPECT_LT(c.planned.plan().arena_bytes,
                compile(g, cpu, false, stream).planned.plan().arena_bytes);
      pipeline::HostProgram program(c.program);
      ASSERT_TRUE(program.input_takes_float(0));
      EXPECT_EQ(program.input_size(0), input.size());
      EXPECT_EQ(program.run({input}).outputs.at(0), expected);
    }
  }
  EXPECT_NE(pipeline::quantized_inputs_sentence(compile(g, "cortex-m4", true, false).planned)
                .find("as int8, 576 bytes in the arena (2,304 as float32)"),
            std::string::npos);
}

TEST(QuantizedInputs, Int16Too) {
  // A 16x8 model's input: float32 quantized to int16 (zero point 0), a LOGISTIC.
  // The builder writes int8: retype its QUANTIZE's output and the LOGISTIC's (TFLite's 16x8
  // output quantization, 1/32768).
  ModelBuilder b(4);
  const TensorId x = b.add_input({1, 4, 5, 2});
  b.mark_output(b.add_logistic(b.add_quantize(x, 1.0f / 4096, 0)));
  ir::Graph g16 = b.build();
  for (const int32_t t : {g16.operators[0].outputs[0], g16.operators[1].outputs[0]}) {
    g16.tensors[static_cast<size_t>(t)].type = ir::DataType::kInt16;
    g16.tensors[static_cast<size_t>(t)].quantization.zero_point = {0};
  }
  g16.tensors[static_cast<size_t>(g16.operators[1].outputs[0])].quantization.scale = {
      1.0f / 32768};
  const std::vector<uint8_t> input = float_bytes(4 * 5 * 2, 1.0f / 4096);
  const std::vector<uint8_t> expected = pipeline::HostProgram(
      compile(g16, "cortex-m4", false, false).program).run({input}).outputs.at(0);
  const pipeline::Compiled c = compile(g16, "cortex-m4", true, false);
  EXPECT_EQ(c.planned.quantized_inputs, 1);
  pipeline::HostProgram program(c.program);
  EXPECT_EQ(program.input_size(0), input.size());
  EXPECT_EQ(program.run({input}).outputs.at(0), expected);
}

TEST(QuantizedInputs, InputsThatStayFloat) {
  {  // Read by the QUANTIZE and by another operator.
    ModelBuilder b(5);
    const TensorId x = b.add_input({1, 4, 4, 2});
    const TensorId q = b.add_quantize(x, 1.0f / 64, 0);
    b.mark_output(b.add_conv2d(q, 3, 1, 1, 1, Padding::kValid));
    b.mark_output(b.add_quantize(x, 1.0f / 32, 1));
    EXPECT_EQ(quantize_float_inputs(b.build()).quantized, 0);
  }
  {  // The QUANTIZE's output is a graph output.
    ModelBuilder b(6);
    const TensorId x = b.add_input({1, 4, 4, 2});
    b.mark_output(b.add_quantize(x, 1.0f / 64, 0));
    EXPECT_EQ(quantize_float_inputs(b.build()).quantized, 0);
  }
  {  // Kept outside the arena: the caller's float buffer, read in place.
    const ir::Graph g = camera_model();
    pipeline::CompileOptions options;
    options.plan.cpu = "cortex-m4";
    options.plan.inputs_outside_arena = true;
    const pipeline::Compiled c = pipeline::compile(g, options);
    EXPECT_EQ(c.planned.quantized_inputs, 0);
    EXPECT_EQ(count_quantizes(c.program), 1);
    EXPECT_EQ(pipeline::quantized_inputs_sentence(c.planned), "");
  }
}

}  // namespace
}  // namespace mote::passes
