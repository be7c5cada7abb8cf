#pragma once
// Shared by the tests of row-streamed stage members (silu_, prelu_, pad_, elementwise_, concat_,
// resize_ and bilinear_stages_test.cc): a model compiled streamed and not on three CPUs must
// stream its members in less arena with the same outputs, and the loader must refuse any changed
// row word of the members under test.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/builder/model_builder.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/row_stages.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "mote/schema/mote_generated.h"
#include "runtime/ops/registry.h"

namespace mote::passes::testing {

// conv 3x3 stride 2 -> `prelu` -> depthwise 3x3 -> conv 1x1 -> ADD (the first PReLU's output)
// -> `prelu` -> max pool 2x2 stride 2, on int8 1x48x40x3: BlazePalm's and the face landmarks
// model's first residual block (and the pool of the next one's shortcut). `prelu(b, x, alpha
// shape)` makes the activation, per channel ({1, 1, channels}, then {channels}). Without streaming
// its peak holds the PReLU's output through the block.
template <typename Prelu>
ir::Graph prelu_residual_block(uint32_t seed, int32_t channels, const Prelu& prelu) {
  builder::ModelBuilder b(seed);
  const builder::TensorId x = b.add_input({1, 48, 40, 3}, ir::DataType::kInt8, 0.02f, -3);
  const builder::TensorId p =
      prelu(b, b.add_conv2d(x, channels, 3, 3, 2, ir::Padding::kSame), {1, 1, channels});
  const builder::TensorId d = b.add_conv2d(b.add_depthwise(p, 3, 3, 1, ir::Padding::kSame),
                                           channels, 1, 1, 1, ir::Padding::kSame);
  b.mark_output(b.add_max_pool(prelu(b, b.add_add(d, p), {channels}), 2, 2, 2));
  return b.build();
}

inline pipeline::Compiled compile_for(const ir::Graph& g, const char* cpu, bool stream) {
  pipeline::CompileOptions options;
  options.plan.cpu = cpu;
  options.plan.time_limit_ms = 50;
  options.plan.stream = stream;
  return pipeline::compile(g, options);
}

// On cortex-m0plus, m4 and m55: one stage holding `members` (kind: how many), in less arena than
// unstreamed, with the unstreamed program's outputs for two input streams.
inline void expect_streams_the_same(const ir::Graph& g, const std::map<ir::OpType, int>& members) {
  for (const char* cpu : {"cortex-m0plus", "cortex-m4", "cortex-m55"}) {
    SCOPED_TRACE(cpu);
    const pipeline::Compiled whole = compile_for(g, cpu, false);
    const pipeline::Compiled streamed = compile_for(g, cpu, true);
    const pipeline::PlannedGraph& planned = streamed.planned;
    ASSERT_EQ(planned.stages.size(), 1u);
    const RowStage& stage = planned.stages.front();
    std::map<ir::OpType, int> held;
    for (int32_t k = stage.first; k <= stage.last; ++k) {
      ++held[g.operators[static_cast<size_t>(k)].type];
    }
    for (const auto& [type, count] : members) {
      EXPECT_EQ(held[type], count) << ir::to_string(type) << " in " << stage.first << ".."
                                   << stage.last;
    }
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

// The reach operator `op` of `g` declares for its input `input` (OpDef::row_reach), or nullopt.
inline std::optional<ops::RowReach> reach_of(const ir::Graph& g, size_t op, size_t input = 0) {
  const ir::Operator& o = g.operators[op];
  return ops::op_def(o.type).row_reach(g, o, input);
}

// Operator `op` of `g` turned 16x8: its input 0 and its output int16.
inline void make_int16(ir::Graph& g, size_t op) {
  for (const int32_t t : {g.operators[op].inputs[0], g.operators[op].outputs[0]}) {
    g.tensors[static_cast<size_t>(t)].type = ir::DataType::kInt16;
  }
}

// The reason the loader gives for a changed copy of `program`, or "" when it runs.
inline std::string refusal(const std::vector<uint8_t>& program,
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

// The runtime reads a member's words (StageCalls.args) instead of its options: every word of the
// stage members of `kinds` in the streamed cortex-m4 program of `g`, changed, is refused. Returns
// how many such members there were.
inline int expect_member_words_checked(const ir::Graph& g,
                                       const std::vector<schema::OpKind>& kinds) {
  const pipeline::Compiled streamed = compile_for(g, "cortex-m4", true);
  const auto* program = schema::GetProgram(streamed.program.data());
  EXPECT_NE(program->stages(), nullptr);
  if (program->stages() == nullptr) return 0;
  const schema::Stage& stage = *program->stages()->Get(0);
  EXPECT_EQ(refusal(streamed.program, [](schema::ProgramT&) {}), "");
  size_t at = 0;  // the member's first word
  int changed = 0;
  for (uint32_t k = stage.first(); k <= stage.last(); ++k) {
    const schema::OpKind kind = program->operators()->Get(k)->kind();
    const size_t words = runtime::internal::any_row_form(kind)->row_words;
    if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) {
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
  EXPECT_EQ(at, program->stage_calls()->Get(0)->args()->size());
  return changed;
}

}  // namespace mote::passes::testing
