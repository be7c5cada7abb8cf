#include "compiler/passes/row_stages.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "compiler/builder/models.h"
#include "compiler/ops/op_def.h"
#include "compiler/planner/verify.h"

namespace mote::passes {
namespace {

constexpr kernels::Extension kDsp = kernels::Extension::kDsp;

// Runs a stage's schedule on ring slots that remember which row they hold: every row a call
// reads must be in its slot (made, and not yet overwritten), and every row is made once, in
// order.
// Independent of the pass's own bookkeeping; returns the first problem, or "".
std::string replay(const ir::Graph& graph, const RowStage& stage, int32_t shrink_ring = -1) {
  std::map<int32_t, std::vector<int32_t>> slots;  // ring tensor -> row held by each slot
  for (size_t i = 0; i < stage.rings.size(); ++i) {
    const int32_t rows = stage.rings[i].rows - (static_cast<int32_t>(i) == shrink_ring ? 1 : 0);
    if (rows <= 0) return "empty ring";
    slots[stage.rings[i].tensor] = std::vector<int32_t>(static_cast<size_t>(rows), -1);
  }
  std::map<int32_t, int32_t> made;  // operator -> rows made so far
  for (const StageCall& call : stage.schedule) {
    const ir::Operator& op = graph.operators[static_cast<size_t>(call.op)];
    if (call.begin != made[call.op]) return "operator " + std::to_string(call.op) + " skips rows";
    for (int32_t y = call.begin; y < call.end; ++y) {
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        const auto ring = slots.find(op.inputs[i]);
        if (ring == slots.end()) continue;
        const ops::RowReach r = *ops::op_def(op.type).row_reach(graph, op, i);
        const int32_t rows = graph.tensors[static_cast<size_t>(op.inputs[i])].shape[1];
        for (int32_t k = 0; k < r.filter; ++k) {  // an accumulating reader: row y, once
          const int32_t row = y * r.stride - r.pad + k * r.dilation;
          if (row < 0 || row >= rows) continue;
          const std::vector<int32_t>& held = ring->second;
          if (held[static_cast<size_t>(row) % held.size()] != row) {
            return "operator " + std::to_string(call.op) + " row " + std::to_string(y) +
                   " reads row " + std::to_string(row) + " of tensor " +
                   std::to_string(op.inputs[i]) + ", not held";
          }
        }
      }
      const auto out = slots.find(op.outputs[0]);
      if (out != slots.end()) out->second[static_cast<size_t>(y) % out->second.size()] = y;
    }
    made[call.op] = call.end;
  }
  // The stage's output whole; the others at most whole (rows no window reads are skipped). An
  // accumulating last operator counts its input's rows.
  for (int32_t k = stage.first; k <= stage.last; ++k) {
    const ir::Operator& op = graph.operators[static_cast<size_t>(k)];
    const std::optional<ops::RowReach> reach = ops::op_def(op.type).row_reach(graph, op, 0);
    const int32_t rows = graph.tensors[static_cast<size_t>(
        reach && reach->accumulate ? op.inputs[0] : op.outputs[0])].shape[1];
    if (made[k] > rows || (k == stage.last && made[k] != rows)) {
      return "operator " + std::to_string(k) + " made " + std::to_string(made[k]);
    }
  }
  return "";
}

TEST(RowStages, AChainsRingsHoldTheWindowRowsExactly) {
  // conv 3x3 -> depthwise 3x3 -> 1x1 ... : a 3x3 reader holds three rows of its input, a 1x1
  // reader one.
  const ir::Graph graph = builder::kws_dscnn_like();
  const std::optional<RowStage> stage = row_stage(graph, 0, 2);
  ASSERT_TRUE(stage.has_value());
  ASSERT_EQ(stage->rings.size(), 2u);
  EXPECT_EQ(replay(graph, *stage), "");
  for (const StageRing& r : stage->rings) {
    const ir::Operator* reader = nullptr;
    for (int32_t k = stage->first; k <= stage->last; ++k) {
      if (graph.operators[k].inputs[0] == r.tensor) reader = &graph.operators[k];
    }
    ASSERT_NE(reader, nullptr);
    const ops::RowReach reach = *ops::op_def(reader->type).row_reach(graph, *reader, 0);
    EXPECT_EQ(r.rows, reach.filter) << "tensor " << r.tensor;
  }
}

// Every stage of every builder model: the schedule reads only held rows with the rings the
// pass sized, makes every row once, and each ring one row smaller loses a row some call reads.
TEST(RowStages, EveryScheduleReadsOnlyHeldRowsAndEveryRingIsTight) {
  int stages = 0;
  for (const builder::NamedModel& model : builder::all_named_models()) {
    const ir::Graph& graph = model.graph;
    const int32_t ops = static_cast<int32_t>(graph.operators.size());
    for (int32_t first = 0; first < ops; ++first) {
      for (int32_t last = first + 1; last < ops; ++last) {
        const std::optional<RowStage> stage = row_stage(graph, first, last);
        if (!stage) continue;
        ++stages;
        SCOPED_TRACE(model.name + " [" + std::to_string(first) + ", " + std::to_string(last) + "]");
        EXPECT_EQ(replay(graph, *stage), "");
        for (size_t i = 0; i < stage->rings.size(); ++i) {
          EXPECT_NE(replay(graph, *stage, static_cast<int32_t>(i)), "") << "ring " << i;
        }
      }
    }
  }
  EXPECT_GT(stages, 20);
}

TEST(RowStages, RefusesWhatCannotStream) {
  const ir::Graph graph = builder::kws_dscnn_like();
  const int32_t ops = static_cast<int32_t>(graph.operators.size());
  EXPECT_FALSE(row_stage(graph, 0, 0));        // one operator
  EXPECT_FALSE(row_stage(graph, 2, 1));        // empty
  EXPECT_FALSE(row_stage(graph, 0, ops));      // past the end
  EXPECT_FALSE(row_stage(graph, 0, ops - 1));  // reaches the fully connected layer
  // The schedule's row numbers are int16: a map of more rows does not stream.
  ASSERT_TRUE(row_stage(graph, 0, 2));
  ir::Graph tall = graph;
  tall.tensors[static_cast<size_t>(tall.operators[1].outputs[0])].shape[1] = 32'768;
  EXPECT_FALSE(row_stage(tall, 0, 2));
  tall.tensors[static_cast<size_t>(tall.operators[1].outputs[0])].shape[1] = 32'767;
  EXPECT_TRUE(row_stage(tall, 0, 2));
}

// A streamed problem is a valid problem whose plans the verifier accepts, and the stage's
// tensors keep their rings' sizes and live through the stage.
TEST(RowStages, CandidatesArePricedByValidPlans) {
  const ir::Graph graph = builder::vww_mobilenet_like();
  const MemoryProblem base = build_memory_problem(graph, kDsp, 16);
  const std::vector<StreamCandidate> candidates = stream_candidates(graph, base);
  ASSERT_FALSE(candidates.empty());
  for (size_t i = 1; i < candidates.size(); ++i) {
    EXPECT_LE(candidates[i - 1].arena, candidates[i].arena);
  }
  for (const StreamCandidate& c : candidates) {
    const planner::Problem p = streamed_memory(graph, base, c.stage).problem;
    EXPECT_NO_THROW(planner::validate(p));
    for (const StageRing& r : c.stage.rings) {
      const planner::Buffer& b = p.buffers[static_cast<size_t>(base.tensor_buffer[r.tensor])];
      EXPECT_EQ(b.size, static_cast<uint64_t>(r.bytes()));
      EXPECT_EQ(b.first_step, c.stage.first);
      EXPECT_EQ(b.last_step, c.stage.last);
    }
  }
}

}  // namespace
}  // namespace mote::passes
