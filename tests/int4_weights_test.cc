// int4 weights end to end: builder::int4_layers() (CONV_2D with a folded PAD, DEPTHWISE_CONV_2D of
// multiplier 2 and 1, a CONV_2D without bias, FULLY_CONNECTED per channel and per tensor, each
// with weights packed two per byte as TFLite stores INT4) written as .tflite, read back, compiled
// for three CPUs and run on the host, against the same graph with its weights unpacked to int8.
// That is how TFLite and TFLM run int4 weights (UnpackDenseInt4IntoInt8, then the int8 kernel),
// and Mote's int8 path is exact against TFLite elsewhere (the MLPerf models, ../shared/vectors).
// Needs nothing from outside.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"
#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/validate.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "compiler/tflite/reader.h"

namespace mote {
namespace {

using ::testing::HasSubstr;

constexpr const char* kCpus[] = {"cortex-m0plus", "cortex-m4", "cortex-m55"};

pipeline::Compiled compile_for(const ir::Graph& graph, const char* cpu) {
  pipeline::CompileOptions options;
  options.plan.cpu = cpu;
  return pipeline::compile(graph, options);
}

std::vector<uint8_t> run(const ir::Graph& graph, const char* cpu,
                         const std::vector<uint8_t>& input) {
  return pipeline::run_on_host(compile_for(graph, cpu).program, {input}).outputs.at(0);
}

size_t int4_tensors(const ir::Graph& g) {
  size_t n = 0;
  for (const ir::Tensor& t : g.tensors) n += t.type == ir::DataType::kInt4 ? 1 : 0;
  return n;
}

TEST(Int4Weights, ATfliteFileKeepsThemPacked) {
  const ir::Graph graph = builder::int4_layers();
  ASSERT_EQ(int4_tensors(graph), 6u);
  const ir::Graph read = tflite::read_model(builder::write_model(graph));
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    if (graph.tensors[t].type != ir::DataType::kInt4) continue;
    EXPECT_EQ(read.tensors[t].type, ir::DataType::kInt4) << t;
    EXPECT_EQ(read.tensors[t].data, graph.tensors[t].data) << t;
    EXPECT_EQ(read.tensors[t].data.size(), (graph.tensors[t].num_elements() + 1) / 2) << t;
  }
  // Packing: element 2k in the low nibble of byte k.
  const ir::Tensor& first = graph.tensors[graph.operators[1].inputs[1]];
  const ir::Graph twin = builder::int4_unpacked(graph);
  const ir::Tensor& unpacked = twin.tensors[graph.operators[1].inputs[1]];
  ASSERT_EQ(first.num_elements() % 2, 1);  // a last byte half used
  for (size_t i = 0; i < 6; ++i) {
    const int32_t nibble = (first.data[i / 2] >> (4 * (i % 2))) & 15;
    EXPECT_EQ(static_cast<int8_t>(unpacked.data[i]), nibble >= 8 ? nibble - 16 : nibble) << i;
  }
}

TEST(Int4Weights, EveryLayerEqualsItsUnpackedInt8TwinOnEveryCpu) {
  const ir::Graph graph = tflite::read_model(builder::write_model(builder::int4_layers()));
  std::mt19937 rng(11);
  std::vector<uint8_t> input(10 * 10 * 3);
  for (uint8_t& b : input) b = static_cast<uint8_t>(rng());
  size_t nonzero = 0;
  // Every operator's output: the graph cut after it, its output the graph's.
  for (size_t n = 1; n <= graph.operators.size(); ++n) {
    ir::Graph prefix = graph;
    prefix.operators.resize(n);
    prefix.outputs = {prefix.operators.back().outputs[0]};
    const ir::Graph twin = builder::int4_unpacked(prefix);
    ASSERT_EQ(int4_tensors(twin), 0u);
    for (const char* cpu : kCpus) {
      const std::vector<uint8_t> want = run(twin, cpu, input);
      EXPECT_EQ(run(prefix, cpu, input), want)
          << to_string(prefix.operators.back().type) << " (operator " << n - 1 << ") on " << cpu;
      for (uint8_t b : want) nonzero += b != 0 ? 1 : 0;
    }
  }
  EXPECT_GT(nonzero, 100u);  // the layers compute something
}

// Every extension runs int4 weights with the portable direct loops, which need no scratch.
TEST(Int4Weights, RunTheDirectLoopsOnEveryExtension) {
  const ir::Graph graph = builder::int4_layers();
  size_t checked = 0;
  for (const ir::Operator& op : graph.operators) {
    if (!ops::int4_weights(graph, op)) continue;
    for (const kernels::Extension e :
         {kernels::Extension::kScalar, kernels::Extension::kDsp, kernels::Extension::kMve}) {
      EXPECT_STREQ(ops::operator_kernel_variant(graph, op, e), "portable int4");
      EXPECT_EQ(ops::operator_scratch_bytes(graph, op, e), 0u);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 6u);
}

// The weights sit in the program packed: its constants are smaller than the int8 twin's by half
// the weights (less the 16-byte alignment of each tensor), on every CPU.
TEST(Int4Weights, ProgramConstantsStayPacked) {
  const ir::Graph graph = builder::int4_layers();
  int64_t weights = 0;
  for (const ir::Tensor& t : graph.tensors) {
    if (t.type == ir::DataType::kInt4) weights += t.num_elements();
  }
  for (const char* cpu : kCpus) {
    const auto packed = compile_for(graph, cpu).program.size();
    const auto twin = compile_for(builder::int4_unpacked(graph), cpu).program.size();
    EXPECT_GE(static_cast<int64_t>(twin) - static_cast<int64_t>(packed), weights / 2 - 6 * 16)
        << cpu;
  }
}

// ops::validate's verdict: its notes are empty, a refusal throws.
std::string refusal(const ir::Graph& g) {
  try {
    ops::validate(g);
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

// Where TFLite has no int4 kernel, the model is refused with what to do.
TEST(Int4Weights, RefusedWhereTfliteTakesNone) {
  const ir::Graph graph = builder::int4_layers();
  EXPECT_EQ(refusal(graph), "");
  // 16x8: TFLite's int16 kernels take int8 weights only.
  EXPECT_THAT(refusal(builder::as_int16(graph)),
              HasSubstr("has type int4, expected int8; int4 weights are taken by CONV_2D, "
                        "DEPTHWISE_CONV_2D and FULLY_CONNECTED with int8 activations"));
  // An int4 activation.
  ir::Graph activation = graph;
  ir::Tensor& x = activation.tensors[activation.inputs[0]];
  x.type = ir::DataType::kInt4;
  x.quantization.zero_point = {0};
  EXPECT_THAT(refusal(activation), HasSubstr("type int4 not supported except as constant weights"));
  // Through the reader, the same words.
  try {
    tflite::read_model(builder::write_model(builder::as_int16(graph)));
    ADD_FAILURE() << "a 16x8 model with int4 weights was read";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("quantize these to int8"));
  }
}

// The loader takes int4 only as the constant weights of an int8 convolution or FULLY_CONNECTED.
TEST(Int4Weights, TheLoaderRefusesInt4ElsewhereAndTakesItThere) {
  const std::vector<uint8_t> bytes = compile_for(builder::int4_layers(), "cortex-m4").program;
  const auto unpacked = [&bytes] {
    schema::ProgramT p;
    schema::GetProgram(bytes.data())->UnPackTo(&p);
    return p;
  };
  // emit_program loads what it packs, and throws the loader's reason.
  const auto refusal = [](schema::ProgramT p) -> std::string {
    try {
      emit::emit_program(std::move(p));
      return "";
    } catch (const std::exception& e) {
      return e.what();
    }
  };
  EXPECT_EQ(refusal(unpacked()), "");
  // The first convolution's input made int16 over the same bytes: int4 weights under int16.
  schema::ProgramT int16_input = unpacked();
  const schema::OperatorT& conv = *int16_input.operators.front();
  ASSERT_EQ(int16_input.tensors[conv.inputs[1]]->type, schema::DataType::Int4);
  schema::TensorT& x = *int16_input.tensors[conv.inputs[0]];
  ASSERT_EQ(x.shape, (std::vector<int32_t>{1, 10, 10, 3}));
  x.type = schema::DataType::Int16;
  x.shape = {1, 10, 5, 3};
  EXPECT_THAT(refusal(std::move(int16_input)), HasSubstr("int4 only as the weights"));
  // An arena tensor of int4.
  schema::ProgramT arena = unpacked();
  schema::TensorT& y = *arena.tensors[arena.operators.front()->outputs[0]];
  y.type = schema::DataType::Int4;
  y.size = (y.size + 1) / 2;
  EXPECT_THAT(refusal(std::move(arena)), HasSubstr("int4 tensor not a constant"));
}

}  // namespace
}  // namespace mote
