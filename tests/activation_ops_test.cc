// RELU, RELU6, TANH, PRELU, SQUARED_DIFFERENCE, RSQRT and LOG_SOFTMAX end to end: builder models
// of several shapes and quantizations written as .tflite, read back, compiled for a scalar, a DSP
// and an MVE CPU, run on the host and compared byte for byte with slow references of TensorFlow Lite's int8
// kernels (activation_reference.cc); and the models their definitions refuse, with the reason.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <set>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/writer.h"
#include "compiler/ir/error.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "compiler/tflite/reader.h"
#include "mote/kernels/broadcast.h"
#include "tests/activation_reference.h"

namespace mote {
namespace {

using builder::ModelBuilder;
using builder::TensorId;
using ::testing::HasSubstr;

constexpr const char* kCpus[] = {"cortex-m0plus", "cortex-m4", "cortex-m55"};

// An operator without options whose output is int8 of `shape`, `scale`, `zero_point`.
TensorId op(ModelBuilder& b, ir::OpType type, const std::vector<TensorId>& inputs,
            const std::vector<int32_t>& shape, float scale, int32_t zero_point) {
  return b.add_operator(type, inputs, std::monostate{}, shape, scale, zero_point);
}

// Every graph output of `graph` on the host for `cpu`, compared with the references evaluated
// operator by operator; random int8 inputs.
void expect_matches_reference(const ir::Graph& built, uint32_t seed) {
  const ir::Graph graph = tflite::read_model(builder::write_model(built));
  ASSERT_EQ(graph, built);
  std::mt19937 rng(seed);
  std::vector<std::vector<uint8_t>> inputs;
  std::vector<std::vector<int8_t>> values(graph.tensors.size());
  for (int32_t t : graph.inputs) {
    std::vector<uint8_t> bytes(static_cast<size_t>(graph.tensors[t].num_bytes()));
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    values[t].assign(bytes.begin(), bytes.end());
    inputs.push_back(bytes);
  }
  for (const ir::Operator& op : graph.operators) {
    ASSERT_TRUE(testing::has_activation_reference(op.type));
    values[op.outputs[0]] = testing::activation_reference(graph, op, values);
  }
  for (const char* cpu : kCpus) {
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    const pipeline::Compiled compiled = pipeline::compile(graph, options);
    const pipeline::HostRun run = pipeline::run_on_host(compiled.program, inputs);
    ASSERT_EQ(run.outputs.size(), graph.outputs.size());
    for (size_t k = 0; k < graph.outputs.size(); ++k) {
      const std::vector<int8_t>& want = values[graph.outputs[k]];
      const std::vector<int8_t> got(run.outputs[k].begin(), run.outputs[k].end());
      EXPECT_EQ(got, want) << cpu << ", output " << k;
      // A reference that collapses would not notice much.
      const size_t distinct = std::set<int8_t>(want.begin(), want.end()).size();
      EXPECT_GE(distinct, std::min<size_t>(want.size(), 4)) << "output " << k << " collapses";
    }
  }
}

const std::vector<std::vector<int32_t>> kShapes = {{1, 5, 7, 3}, {2, 33}, {64}, {1, 2, 3, 4, 5}};

TEST(ActivationOps, ReluAndRelu6) {
  for (const auto& shape : kShapes) {
    ModelBuilder b;
    const TensorId x = b.add_input(shape, ir::DataType::kInt8, 0.06f, 5);
    // Same quantization, a finer output scale, and RELU6 clamping at 6 inside the range.
    b.mark_output(op(b, ir::OpType::kRelu, {x}, shape, 0.06f, 5));
    b.mark_output(op(b, ir::OpType::kRelu, {x}, shape, 0.03f, -128));
    b.mark_output(op(b, ir::OpType::kRelu6, {x}, shape, 0.03f, -128));
    b.mark_output(op(b, ir::OpType::kRelu6, {x}, shape, 0.06f, 5));
    SCOPED_TRACE(ir::shape_string(shape));
    expect_matches_reference(b.build(), 1);
  }
}

TEST(ActivationOps, Tanh) {
  for (const auto& shape : kShapes) {
    for (const auto& [scale, zp] :
         {std::pair{0.02f, 0}, std::pair{0.05f, -20}, std::pair{0.004f, 100}}) {
      ModelBuilder b;
      const TensorId x = b.add_input(shape, ir::DataType::kInt8, scale, zp);
      b.mark_output(op(b, ir::OpType::kTanh, {x}, shape, 1.0f / 128, 0));
      SCOPED_TRACE(ir::shape_string(shape) + " scale " + std::to_string(scale));
      expect_matches_reference(b.build(), 2);
    }
  }
}

TEST(ActivationOps, PreluWithConstantAndActivationAlpha) {
  const std::vector<std::pair<std::vector<int32_t>, std::vector<int32_t>>> shapes = {
      {{1, 6, 5, 4}, {4}},           // per channel (the last axis), as converters write it
      {{1, 6, 5, 4}, {1, 1, 4}},     // the same, rank 3
      {{2, 3, 8}, {3, 1}},           // per row
      {{1, 4, 4, 3}, {1, 4, 4, 3}},  // the full shape
      {{7, 9}, {1}},                 // one alpha
  };
  for (const auto& [shape, alpha_shape] : shapes) {
    ModelBuilder b;
    const TensorId x = b.add_input(shape, ir::DataType::kInt8, 0.05f, -10);
    size_t n = 1;
    for (int32_t d : alpha_shape) n *= static_cast<size_t>(d);
    std::vector<int8_t> alpha_values(n);
    std::mt19937 rng(static_cast<uint32_t>(n));
    for (int8_t& a : alpha_values) a = static_cast<int8_t>(static_cast<int>(rng() % 200) - 60);
    const TensorId alpha = b.add_int8_constant(alpha_shape, alpha_values, 0.004f, 20);
    b.mark_output(op(b, ir::OpType::kPrelu, {x, alpha}, shape, 0.04f, 30));
    // An activation alpha of the input's shape (TFLite takes any tensor).
    if (alpha_shape == shape) {
      const TensorId a = b.add_input(shape, ir::DataType::kInt8, 0.01f, 0);
      b.mark_output(op(b, ir::OpType::kPrelu, {x, a}, shape, 0.04f, 0));
    }
    SCOPED_TRACE(ir::shape_string(shape) + " alpha " + ir::shape_string(alpha_shape));
    expect_matches_reference(b.build(), 3);
  }
}

TEST(ActivationOps, SquaredDifferenceBroadcasting) {
  const std::vector<std::pair<std::vector<int32_t>, std::vector<int32_t>>> shapes = {
      {{1, 5, 5, 8}, {1, 5, 5, 8}}, {{1, 5, 5, 8}, {1, 1, 1, 8}}, {{3, 1, 6}, {4, 1}},
      {{10}, {1}}, {{2, 3, 1, 2, 3}, {3, 4, 1, 1}}};
  for (const auto& [sa, sb] : shapes) {
    ModelBuilder b;
    const TensorId x = b.add_input(sa, ir::DataType::kInt8, 0.05f, 3);
    const TensorId y = b.add_input(sb, ir::DataType::kInt8, 0.08f, -7);
    kernels::BroadcastShape s{};
    ASSERT_TRUE(kernels::prepare_broadcast_shape(sa.data(), static_cast<int32_t>(sa.size()),
                                                 sb.data(), static_cast<int32_t>(sb.size()), &s));
    const std::vector<int32_t> out(s.output, s.output + s.rank);
    // (0.05 * 255 + 0.08 * 255)^2 ~ 1100 at most; typical differences are far smaller.
    b.mark_output(op(b, ir::OpType::kSquaredDifference, {x, y}, out, 0.6f, -128));
    b.mark_output(op(b, ir::OpType::kSquaredDifference, {y, x}, out, 1.5f, -100));
    SCOPED_TRACE(ir::shape_string(sa) + " and " + ir::shape_string(sb));
    expect_matches_reference(b.build(), 4);
  }
  // A constant operand.
  ModelBuilder b;
  const TensorId x = b.add_input({1, 4, 4, 3}, ir::DataType::kInt8, 0.05f, 3);
  const TensorId mean = b.add_int8_constant({3}, {-40, 0, 90}, 0.05f, 3);
  b.mark_output(op(b, ir::OpType::kSquaredDifference, {x, mean}, {1, 4, 4, 3}, 0.2f, -128));
  expect_matches_reference(b.build(), 5);
}

TEST(ActivationOps, Rsqrt) {
  for (const auto& shape : kShapes) {
    ModelBuilder b;
    // Mostly positive reals (zero point -100), and through a RELU (only values >= 0), as a
    // variance before it in a normalisation would be.
    const TensorId x = b.add_input(shape, ir::DataType::kInt8, 0.02f, -100);
    b.mark_output(op(b, ir::OpType::kRsqrt, {x}, shape, 0.06f, -128));
    const TensorId r = op(b, ir::OpType::kRelu, {x}, shape, 0.02f, -128);
    b.mark_output(op(b, ir::OpType::kRsqrt, {r}, shape, 0.03f, -100));
    SCOPED_TRACE(ir::shape_string(shape));
    expect_matches_reference(b.build(), 6);
  }
}

TEST(ActivationOps, LogSoftmax) {
  for (const auto& shape : kShapes) {
    for (const auto& [scale, zp] :
         {std::pair{0.02f, 0}, std::pair{0.08f, -30}, std::pair{0.2f, 60}, std::pair{0.004f, 5}}) {
      ModelBuilder b;
      const TensorId x = b.add_input(shape, ir::DataType::kInt8, scale, zp);
      b.mark_output(op(b, ir::OpType::kLogSoftmax, {x}, shape, 16.0f / 256, 127));
      SCOPED_TRACE(ir::shape_string(shape) + " scale " + std::to_string(scale));
      expect_matches_reference(b.build(), 8);
    }
  }
  // Behind another operator (a RELU: rows where about half the values are equal at zero).
  ModelBuilder b;
  const TensorId x = b.add_input({2, 40}, ir::DataType::kInt8, 0.05f, 0);
  const TensorId logits = op(b, ir::OpType::kRelu, {x}, {2, 40}, 0.05f, -128);
  b.mark_output(op(b, ir::OpType::kLogSoftmax, {logits}, {2, 40}, 16.0f / 256, 127));
  expect_matches_reference(b.build(), 9);
}

// The last operator, elementwise, reads a graph output: the planner must not let it run in place
// over that output (the output's lifetime ends at the last step, but the caller reads it after).
TEST(ActivationOps, LastOperatorDoesNotOverwriteAGraphOutput) {
  const std::vector<int32_t> shape = {1, 6, 6, 4};
  ModelBuilder b;
  const TensorId x = b.add_input(shape, ir::DataType::kInt8, 0.05f, -20);
  const TensorId r = op(b, ir::OpType::kRelu, {x}, shape, 0.05f, -128);
  b.mark_output(r);
  b.mark_output(op(b, ir::OpType::kTanh, {r}, shape, 1.0f / 128, 0));
  expect_matches_reference(b.build(), 7);
}

// Models the definitions refuse, each with the operator and the reason.
void expect_refused(const std::function<void(ModelBuilder&, TensorId)>& build,
                    const std::string& text) {
  ModelBuilder b;
  const TensorId x = b.add_input({1, 4, 4, 2}, ir::DataType::kInt8, 0.1f, 0);
  build(b, x);
  try {
    b.build();
    ADD_FAILURE() << "accepted; expected: " << text;
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr(text));
  }
}

TEST(ActivationOps, DefinitionsRefuseWhatTheKernelsCannotDo) {
  const std::vector<int32_t> shape = {1, 4, 4, 2};
  expect_refused(
      [&](ModelBuilder& b, TensorId x) {
        b.mark_output(op(b, ir::OpType::kTanh, {x}, shape, 1.0f / 256, -128));
      },
      "operator 0 (TANH): output (tensor 1) must have scale 1/128 and zero point 0, has scale "
      "0.00390625 and zero point -128");
  expect_refused(
      [&](ModelBuilder& b, TensorId x) {
        b.mark_output(op(b, ir::OpType::kRelu6, {x}, {1, 4, 4, 1}, 0.1f, 0));
      },
      "operator 0 (RELU6): output (tensor 1) has shape [1,4,4,1], expected [1,4,4,2]");
  expect_refused(
      [&](ModelBuilder& b, TensorId x) {
        b.mark_output(op(b, ir::OpType::kRelu, {x}, shape, 1e-9f, 0));
      },
      "operator 0 (RELU): input scale 0.100000001 over output scale 9.99999972e-10 overflows");
  expect_refused(
      [&](ModelBuilder& b, TensorId x) {
        const TensorId alpha = b.add_int8_constant({1, 1, 1, 1, 2}, {1, 2}, 0.01f, 0);
        b.mark_output(op(b, ir::OpType::kPrelu, {x, alpha}, {1, 1, 4, 4, 2}, 0.1f, 0));
      },
      "operator 0 (PRELU): output (tensor 2) has shape [1,1,4,4,2], expected [1,4,4,2]");
  expect_refused(
      [&](ModelBuilder& b, TensorId x) {
        const TensorId alpha = b.add_int8_constant({3}, {1, 2, 3}, 0.01f, 0);
        b.mark_output(op(b, ir::OpType::kPrelu, {x, alpha}, shape, 0.1f, 0));
      },
      "operator 0 (PRELU): input shapes [1,4,4,2] and [3] do not broadcast");
  expect_refused(
      [&](ModelBuilder& b, TensorId x) {
        const TensorId alpha = b.add_int8_constant({2}, {1, 2}, 0.5f, 0);
        b.mark_output(op(b, ir::OpType::kPrelu, {x, alpha}, shape, 1e-7f, 0));
      },
      "operator 0 (PRELU): input scale 0.100000001 and alpha scale 0.5 with output scale");
  expect_refused(
      [&](ModelBuilder& b, TensorId x) {
        b.mark_output(op(b, ir::OpType::kSquaredDifference, {x, x}, shape,
                                     1e-7f, 0));
      },
      "operator 0 (SQUARED_DIFFERENCE): input scales 0.100000001 and 0.100000001 with output "
      "scale 1.00000001e-07 overflow the int32 arithmetic");
  expect_refused(
      [&](ModelBuilder& b, TensorId x) {
        b.mark_output(op(b, ir::OpType::kRsqrt, {x}, shape, 1e5f, 0));
      },
      "operator 0 (RSQRT): input scale 0.100000001 with output scale 100000 gives a requantization "
      "the int8 kernel cannot take");
  expect_refused(
      [&](ModelBuilder& b, TensorId x) {
        b.mark_output(op(b, ir::OpType::kLogSoftmax, {x}, shape, 1.0f / 256, -128));
      },
      "operator 0 (LOG_SOFTMAX): output (tensor 1) must have scale 16/256 and zero point 127, has "
      "scale 0.00390625 and zero point -128");
  expect_refused(
      [&](ModelBuilder& b, TensorId x) {
        b.mark_output(op(b, ir::OpType::kLogSoftmax, {x}, {1, 4, 2, 2}, 16.0f / 256, 127));
      },
      "operator 0 (LOG_SOFTMAX): output (tensor 1) has shape [1,4,2,2], expected [1,4,4,2]");
  expect_refused(
      [&](ModelBuilder& b, TensorId) {
        const TensorId tiny = b.add_input(shape, ir::DataType::kInt8, 1e-8f, 0);
        b.mark_output(op(b, ir::OpType::kLogSoftmax, {tiny}, shape, 16.0f / 256, 127));
      },
      "(LOG_SOFTMAX): input scale 9.99999994e-09 too small for the int8 kernel (needs more than "
      "2^-26)");
  expect_refused(
      [&](ModelBuilder& b, TensorId) {
        const TensorId wide = b.add_input({1, 4096}, ir::DataType::kInt8, 0.1f, 0);
        b.mark_output(op(b, ir::OpType::kLogSoftmax, {wide}, {1, 4096}, 16.0f / 256, 127));
      },
      "(LOG_SOFTMAX): rows of 4096 or more values overflow the int8 kernel's sum of exps");
}

}  // namespace
}  // namespace mote
