// SiLU (x * sigmoid(x), YOLO-family detectors' activation) in row-streamed stages, end to end: a
// builder chain of convolutions each followed by LOGISTIC and a MUL of the convolution's output
// with it, compiled for a scalar, a DSP and an MVE CPU, streamed and not, run on the host and
// compared; the loader refuses the elementwise members' words changed; what cannot stream (int16,
// a broadcast or constant operand) stays out.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "compiler/builder/model_builder.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/row_stages.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "mote/schema/mote_generated.h"
#include "runtime/ops/registry.h"

namespace mote::passes {
namespace {

using builder::ModelBuilder;
using builder::TensorId;
using ir::OpType;
using ir::Padding;

constexpr const char* kCpus[] = {"cortex-m0plus", "cortex-m4", "cortex-m55"};

TensorId silu(ModelBuilder& b, TensorId x) { return b.add_mul(x, b.add_logistic(x)); }

// conv 3x3 stride 2 -> SiLU -> conv 3x3 -> SiLU -> conv 1x1: without streaming its peak is a
// convolution's output, its LOGISTIC and their product, all alive at the MUL.
ir::Graph silu_chain() {
  ModelBuilder b(11);
  const TensorId x = b.add_input({1, 48, 40, 3}, ir::DataType::kInt8, 0.02f, -3);
  TensorId y = silu(b, b.add_conv2d(x, 16, 3, 3, 2, Padding::kSame));
  y = silu(b, b.add_conv2d(y, 16, 3, 3, 1, Padding::kSame));
  b.mark_output(b.add_conv2d(y, 8, 1, 1, 1, Padding::kSame));
  return b.build();
}

pipeline::Compiled compile(const ir::Graph& g, const char* cpu, bool stream) {
  pipeline::CompileOptions options;
  options.plan.cpu = cpu;
  options.plan.time_limit_ms = 50;
  options.plan.stream = stream;
  return pipeline::compile(g, options);
}

TEST(SiluStages, StreamWholeInLessArenaAndComputeTheSame) {
  const ir::Graph g = silu_chain();
  for (const char* cpu : kCpus) {
    SCOPED_TRACE(cpu);
    const pipeline::Compiled whole = compile(g, cpu, false);
    const pipeline::Compiled streamed = compile(g, cpu, true);
    const pipeline::PlannedGraph& planned = streamed.planned;
    ASSERT_EQ(planned.stages.size(), 1u);
    // Every operator in the one stage: both SiLUs' LOGISTIC and MUL among its members.
    const RowStage& stage = planned.stages.front();
    EXPECT_EQ(stage.first, 0);
    EXPECT_EQ(stage.last, static_cast<int32_t>(g.operators.size()) - 1);
    int logistics = 0, muls = 0;
    for (int32_t k = stage.first; k <= stage.last; ++k) {
      logistics += g.operators[static_cast<size_t>(k)].type == OpType::kLogistic;
      muls += g.operators[static_cast<size_t>(k)].type == OpType::kMul;
    }
    EXPECT_EQ(logistics, 2);
    EXPECT_EQ(muls, 2);
    EXPECT_LT(planned.plan().arena_bytes, planned.unstreamed_arena);
    EXPECT_LT(planned.plan().arena_bytes, whole.planned.plan().arena_bytes);
    const auto* program = schema::GetProgram(streamed.program.data());
    ASSERT_NE(program->stages(), nullptr);
    EXPECT_EQ(program->stages()->Get(0)->last(), static_cast<uint32_t>(stage.last));
    for (const uint32_t seed : {1u, 61u}) {
      const std::vector<std::vector<uint8_t>> inputs =
          pipeline::HostProgram(whole.program).default_inputs(seed);
      EXPECT_EQ(pipeline::run_on_host(streamed.program, inputs).outputs,
                pipeline::run_on_host(whole.program, inputs).outputs)
          << "seed " << seed;
    }
  }
}

// The reason the loader gives for a changed copy of `program`, or "" when it runs.
std::string refusal(const std::vector<uint8_t>& program,
                    const std::function<void(schema::ProgramT&)>& change) {
  schema::ProgramT copy;
  schema::GetProgram(program.data())->UnPackTo(&copy);
  change(copy);
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(schema::Program::Pack(builder, &copy), schema::ProgramIdentifier());
  try {
    pipeline::run_on_host(std::vector<uint8_t>(builder.GetBufferPointer(),
                                               builder.GetBufferPointer() + builder.GetSize()));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The runtime reads a member's words (StageCalls.args) instead of its options: a LOGISTIC's or
// a MUL's parameters, width or ring changed there is refused.
TEST(SiluStages, ElementwiseMembersWordsAreChecked) {
  const pipeline::Compiled streamed = compile(silu_chain(), "cortex-m4", true);
  const auto* program = schema::GetProgram(streamed.program.data());
  ASSERT_NE(program->stages(), nullptr);
  const schema::Stage& stage = *program->stages()->Get(0);
  EXPECT_EQ(refusal(streamed.program, [](schema::ProgramT&) {}), "");
  size_t at = 0;  // the member's first word
  int changed = 0;
  for (uint32_t k = stage.first(); k <= stage.last(); ++k) {
    const schema::OpKind kind = program->operators()->Get(k)->kind();
    const size_t words = runtime::internal::any_row_form(kind)->row_words;
    if (kind == schema::OpKind::Logistic || kind == schema::OpKind::Mul) {
      for (size_t word = 0; word < words; ++word) {
        EXPECT_THAT(refusal(streamed.program,
                            [&](schema::ProgramT& p) { p.stage_calls[0]->args[at + word] += 1; }),
                    ::testing::HasSubstr("words (StageCalls.args) differ"))
            << "operator " << k << " word " << word;
      }
      ++changed;
    }
    at += words;
  }
  EXPECT_EQ(changed, 4);
  EXPECT_EQ(at, program->stage_calls()->Get(0)->args()->size());
}

// Int16, a broadcast operand (squeeze-and-excite's MUL by pooled channel weights) or a constant
// one: no rows to stream.
TEST(SiluStages, WhatCannotStreamStaysOut) {
  ModelBuilder b(3);
  const TensorId x = b.add_input({1, 12, 10, 8}, ir::DataType::kInt8, 0.02f, 0);
  const TensorId c = b.add_conv2d(x, 8, 3, 3, 1, Padding::kSame);
  const TensorId s = b.add_mul(c, b.add_logistic(c));
  const TensorId weights = b.add_logistic(b.add_mean(s, {1, 2}, true));
  const TensorId excited = b.add_mul(s, weights);
  std::vector<int8_t> values(12 * 10 * 8, 3);
  b.mark_output(b.add_mul(excited, b.add_int8_constant({1, 12, 10, 8}, values, 0.05f, 0)));
  ir::Graph g = b.build();
  const auto reach = [&](size_t op, size_t input) {
    const ir::Operator& o = g.operators[op];
    return ops::op_def(o.type).row_reach(g, o, input).has_value();
  };
  ASSERT_EQ(g.operators[1].type, OpType::kLogistic);
  ASSERT_EQ(g.operators[2].type, OpType::kMul);
  EXPECT_TRUE(reach(1, 0));
  EXPECT_TRUE(reach(2, 0) && reach(2, 1));
  ASSERT_EQ(g.operators[5].type, OpType::kMul);  // by [1, 1, 1, 8]
  EXPECT_FALSE(reach(5, 0));
  ASSERT_EQ(g.operators[6].type, OpType::kMul);  // by a constant
  EXPECT_FALSE(reach(6, 0));
  // The conv and its SiLU stream; the excitation does not join them.
  const std::optional<RowStage> stage = row_stage(g, 0, 2);
  ASSERT_TRUE(stage.has_value());
  EXPECT_FALSE(row_stage(g, 0, 5).has_value());
  // 16x8: the same operators with int16 activations.
  for (const int32_t t : {g.operators[1].inputs[0], g.operators[1].outputs[0]}) {
    g.tensors[static_cast<size_t>(t)].type = ir::DataType::kInt16;
  }
  EXPECT_FALSE(reach(1, 0));
}

}  // namespace
}  // namespace mote::passes
