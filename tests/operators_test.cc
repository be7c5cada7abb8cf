// The operators that came with the operator registry, end to end: a builder model using
// TRANSPOSE_CONV, LEAKY_RELU, SUB, MAXIMUM and MINIMUM (and activations, reductions,
// data-movement operators and BATCH_MATMUL) is written as .tflite, read back, compiled
// for a scalar, a DSP and an MVE CPU, run on the host, and compared byte for byte with slow
// references of TFLite's kernels (operator_model.cc). The firmware runs the same model under QEMU
// against the same reference (targets/cortex-m/cross).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <set>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/writer.h"
#include "compiler/ir/error.h"
#include "compiler/ops/validate.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "compiler/tflite/reader.h"
#include "tests/operator_model.h"

namespace mote {
namespace {

using ::testing::HasSubstr;

TEST(Operators, ModelRoundTripsThroughTflite) {
  const ir::Graph graph = testing::operator_model();
  EXPECT_EQ(tflite::read_model(builder::write_model(graph)), graph);
}

TEST(Operators, ReferenceOutputIsNotTrivial) {
  const ir::Graph graph = testing::operator_model();
  const auto reference =
      testing::operator_model_reference(graph, testing::operator_model_input(graph));
  // The three 8x8x4 results and the seven activations' (8x8x4 each, LOG_SOFTMAX's last), then
  // SUM [1,8,4], REDUCE_MAX [1,8,1,4], ARG_MAX [1,8,8] and ARG_MIN [1,8,4] (int32), ARG_MAX
  // [1,8,4] (int64), RESIZE_BILINEAR [1,7,9,3]; then the data-movement operators' (below).
  const size_t sizes[] = {256, 256, 256, 256, 256, 256, 256, 256, 256, 256,
                          32,  32,  64 * 4, 32 * 4, 32 * 8, 7 * 9 * 3};
  const size_t min_distinct[] = {10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 8, 4, 4, 4, 10};
  size_t offset = 0;
  for (size_t output = 0; output < std::size(sizes); ++output) {
    ASSERT_LE(offset + sizes[output], reference.size());
    const std::set<uint8_t> distinct(reference.begin() + offset,
                                     reference.begin() + offset + sizes[output]);
    EXPECT_GE(distinct.size(), min_distinct[output]) << "output " << output
                                                     << " saturates or collapses";
    offset += sizes[output];
  }
  // STRIDED_SLICE 48, SLICE 56, SPLIT 128, SPLIT_V 24 + 32, PACK 256, UNPACK 3 x 16, GATHER 128,
  // DEPTH_TO_SPACE and SPACE_TO_DEPTH 256 each; then BATCH_MATMUL's [1,8,8,6] and [1,8,8,8];
  // then UNIDIRECTIONAL_SEQUENCE_LSTM's [1,8,6].
  EXPECT_EQ(reference.size() - offset,
            48u + 56 + 128 + 24 + 32 + 256 + 48 + 128 + 256 + 256 + 384 + 512 + 48);
  const std::set<uint8_t> lstm(reference.end() - 48, reference.end());
  EXPECT_GE(lstm.size(), 10u) << "the LSTM's output saturates or collapses";
}

class OperatorsOnCpu : public ::testing::TestWithParam<const char*> {};

TEST_P(OperatorsOnCpu, CompiledFromTfliteMatchesTheReferences) {
  const ir::Graph graph = tflite::read_model(builder::write_model(testing::operator_model()));
  const std::vector<uint8_t> input = testing::operator_model_input(graph);
  pipeline::CompileOptions options;
  options.plan.cpu = GetParam();
  const pipeline::Compiled compiled = pipeline::compile(graph, options);
  const pipeline::HostRun run = pipeline::run_on_host(compiled.program, {input});
  const std::vector<uint8_t> reference = testing::operator_model_reference(graph, input);
  size_t at = 0;
  for (size_t k = 0; k < run.outputs.size(); ++k) {
    const std::vector<uint8_t>& output = run.outputs[k];
    ASSERT_LE(at + output.size(), reference.size());
    const std::vector<uint8_t> want(reference.begin() + at, reference.begin() + at + output.size());
    EXPECT_EQ(output, want) << "output " << k;
    at += output.size();
  }
  EXPECT_EQ(at, reference.size());
}

INSTANTIATE_TEST_SUITE_P(Cpus, OperatorsOnCpu,
                         ::testing::Values("cortex-m0plus", "cortex-m4", "cortex-m55"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

// Models the operators' definitions refuse, each with the operator and the reason.
void expect_refused(const std::function<void(builder::ModelBuilder&, builder::TensorId)>& build,
                    const std::string& text) {
  builder::ModelBuilder b;
  const builder::TensorId x = b.add_input({1, 4, 4, 2}, ir::DataType::kInt8, 0.1f, 0);
  build(b, x);
  try {
    b.build();
    ADD_FAILURE() << "accepted; expected: " << text;
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr(text));
  }
}

TEST(Operators, DefinitionsRefuseWhatTfliteDoesNotDefine) {
  expect_refused(
      [](builder::ModelBuilder& b, builder::TensorId x) {
        b.mark_output(b.add_operator(ir::OpType::kLeakyRelu, {x}, ir::LeakyReluOptions{-0.5f},
                                     {1, 4, 4, 2}, 0.1f, 0));
      },
      "operator 0 (LEAKY_RELU): alpha -0.5 must be a non-negative number");
  expect_refused(
      [](builder::ModelBuilder& b, builder::TensorId x) {
        const builder::TensorId y = b.add_input({1, 3, 4, 2}, ir::DataType::kInt8, 0.1f, 0);
        b.mark_output(b.add_operator(ir::OpType::kSub, {x, y}, ir::ElementwiseOptions{},
                                     {1, 4, 4, 2}, 0.1f, 0));
      },
      "operator 0 (SUB): input shapes [1,4,4,2] and [1,3,4,2] do not broadcast");
  expect_refused(
      [](builder::ModelBuilder& b, builder::TensorId x) {
        b.mark_output(b.add_operator(ir::OpType::kMaximum, {x, x}, std::monostate{},
                                     {1, 4, 4, 1}, 0.1f, 0));
      },
      "operator 0 (MAXIMUM): output (tensor 1) has shape [1,4,4,1], expected [1,4,4,2]");
}

// MAXIMUM and MINIMUM by a constant (a ReLU6 written as MAXIMUM(x, 0) and MINIMUM(6, x), TFLite's
// raw comparison), the constant either operand and broadcast: read from .tflite, compiled for
// three CPUs and run, each output byte the larger or smaller raw value.
TEST(Operators, MaximumAndMinimumTakeAConstant) {
  builder::ModelBuilder b(5);
  const builder::TensorId x = b.add_input({1, 6, 5, 4}, ir::DataType::kInt8, 0.05f, -10);
  const std::vector<int8_t> ceiling = {-60, 0, 40, 127};  // per channel
  const builder::TensorId relu = b.add_maximum(x, b.add_int8_constant({1}, {-10}, 0.05f, -10));
  b.mark_output(b.add_minimum(b.add_int8_constant({4}, ceiling, 0.05f, -10), relu));
  const ir::Graph graph = tflite::read_model(builder::write_model(b.build()));
  std::vector<uint8_t> input(6 * 5 * 4);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>(i * 37 + 11);
  std::vector<uint8_t> expected(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    const int v = std::max<int>(static_cast<int8_t>(input[i]), -10);
    expected[i] = static_cast<uint8_t>(static_cast<int8_t>(std::min<int>(v, ceiling[i % 4])));
  }
  for (const char* cpu : {"cortex-m0plus", "cortex-m4", "cortex-m55"}) {
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    const pipeline::Compiled compiled = pipeline::compile(graph, options);
    EXPECT_EQ(pipeline::run_on_host(compiled.program, {input}).outputs,
              std::vector<std::vector<uint8_t>>{expected})
        << cpu;
  }
}

TEST(Operators, TransposeConvOutputShapeMustMatchItsShapeInput) {
  builder::ModelBuilder b;
  const builder::TensorId x = b.add_input({1, 4, 4, 2}, ir::DataType::kInt8, 0.1f, 0);
  b.mark_output(b.add_transpose_conv(x, 3, 3, 3, 2));
  ir::Graph g = b.graph();
  // The output shape operand says 9x9, the output tensor is 8x8.
  ir::Tensor& shape = g.tensors[g.operators[0].inputs[0]];
  const int32_t nine = 9;
  std::memcpy(shape.data.data() + 4, &nine, 4);
  try {
    ops::validate(g);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("operator 0 (TRANSPOSE_CONV): output"));
    EXPECT_THAT(e.what(), HasSubstr("has shape [1,8,8,3], expected [1,9,8,3]"));
  }
}

}  // namespace
}  // namespace mote
