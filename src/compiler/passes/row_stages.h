#pragma once
// Row-streamed stages, the compiler's analysis: a run of consecutive operators that
// can compute their outputs a few rows at a time (OpDef::row_reach) may run as one stage, output
// row by output row of its last operator, each tensor made and read inside the stage held as a
// ring of the rows its readers still need. This pass finds the stages a graph allows, runs the
// demand-driven schedule at compile time (no recomputation: every row is computed once, as late
// as a reader needs it) to size each ring exactly, and prices each candidate with the planner.
// Nothing runs stages yet: the kernels, the program and the runtime come next.

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/passes/memory_problem.h"

namespace mote::passes {

// A tensor held as a ring: row r in slot r mod rows.
struct StageRing {
  int32_t tensor = 0;
  int32_t rows = 0;        // slots; at most the tensor's height
  int64_t row_bytes = 0;   // width * channels * element size
  int64_t bytes() const { return rows * row_bytes; }
};

// One kernel call of the schedule: operator `op` computes its output rows [begin, end).
struct StageCall {
  int32_t op = 0;
  int32_t begin = 0, end = 0;
};

struct RowStage {
  int32_t first = 0, last = 0;  // operators [first, last], in the graph's order
  std::vector<StageRing> rings;
  std::vector<StageCall> schedule;
  // The stage's output (operator `last`'s) may start this many bytes before `input` (the
  // stage's one input from outside, which dies in the stage) and be written over it as the
  // schedule consumes it: the forward rule of mote/kernels/overlap.h. Empty: keep them apart.
  std::optional<int64_t> output_lead;
  int32_t input = ir::kNoTensor;
  // The last operator accumulates (a global average pool): its int32 sums live in its own
  // scratch through the stage.
  bool accumulates = false;
  int64_t ring_bytes() const;
};

// The stage of operators [first, last] of `graph` (its own order), or nullopt when they cannot
// run as one: an operator without row_reach for an activation input, a tensor made inside and
// read outside (or a graph output) before `last`, several outputs, not 4-D of batch 1.
std::optional<RowStage> row_stage(const ir::Graph& graph, int32_t first, int32_t last);

// The operator of `stage` whose scratch buffer (in `base`) is the largest, or -1 when none needs
// scratch. Its region serves every operator of the stage but an accumulating last one: they run
// one call at a time, and no other row kernel keeps anything in scratch between calls.
int32_t shared_scratch_op(const MemoryProblem& base, const RowStage& stage);

// `base` (build_memory_problem of the same graph, its own order) with `stage` streamed: its
// rings live through the whole stage at their ring size, its inputs from outside until its end,
// the shared scratch (shared_scratch_op's) through it and the other operators' none (an
// accumulating last operator's sums, channels * 4 bytes, through it apart), its output over its
// input where output_lead allows, and no other overlap touching its tensors.
MemoryProblem streamed_memory(const ir::Graph& graph, const MemoryProblem& base,
                              const RowStage& stage);

// A stage worth pricing and its arena (auto plan), next to the arena without streaming.
struct StreamCandidate {
  RowStage stage;
  uint64_t arena = 0;
};
// Every stage [first, last] of two or more operators that starts where a run of streamable
// operators starts, priced by streamed_memory of `base` (the auto plan, `time_limit_ms` each),
// best first. With `taken` (stages `base` already streams), only stages apart from them, a run
// also starting right after one.
std::vector<StreamCandidate> stream_candidates(const ir::Graph& graph, const MemoryProblem& base,
                                               double time_limit_ms = 100,
                                               const std::vector<RowStage>& taken = {});

}  // namespace mote::passes
