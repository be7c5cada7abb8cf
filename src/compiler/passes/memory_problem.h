#pragma once
// From a graph to the planner's problem: which tensors need arena bytes, when they live, and the
// scratch each operator needs on the target extension. The planner itself knows nothing of
// operators; this is where operators become sizes and lifetimes.

#include <cstdint>
#include <span>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/planner/problem.h"
#include "compiler/planner/report.h"
#include "mote/kernels/scratch.h"

namespace mote::passes {

inline constexpr int32_t kNoBuffer = -1;

struct MemoryProblem {
  planner::Problem problem;
  // Per IR tensor: the planner buffer holding its bytes, or kNoBuffer (constants, unused tensors).
  // A reshape output shares its input's buffer.
  std::vector<int32_t> tensor_buffer;
  // Per IR tensor: the tensor that owns the shared buffer (itself when it owns it), or kNoTensor.
  std::vector<int32_t> buffer_owner;
  // Per operator: its scratch buffer, or kNoBuffer when it needs none on this extension.
  std::vector<int32_t> op_scratch_buffer;
  // Per operator: the kernel variant that runs it on this extension and its scratch, for reports.
  std::vector<planner::StepKernel> kernels;
  // Per step: its kernel runs in place (ops::operator_in_place_scratch; the program marks it).
  std::vector<bool> in_place;
  // The graph inputs kept outside the arena (no buffer: the caller binds its own), in the
  // graph's input order, with their bytes, for reports.
  std::vector<int32_t> external_inputs;
  std::vector<planner::OutsideBuffer> outside_arena;
};

// Step k is operator k. Graph inputs live from step 0 and graph outputs to the last step; an
// activation from its producer to its last consumer; a scratch buffer during its operator only;
// a state (variable tensor) at every step, and no output overlaps it.
// Every buffer gets `alignment` (a power of two). The graph must have passed ops::validate; each operator's scratch comes from its definition
// (ops::operator_scratch_bytes).
// With `with_overlaps`, each operator's output may overlap the inputs that die at it where its
// kernel's overlap rule allows (ops::operator_overlap); the program needs nothing more, as the
// runtime recomputes the rule.
// `order` (order[step]: the operator's index in the graph; empty: the graph's own order) lets the
// order search price an order without building the reordered graph.
// With `inputs_outside_arena`, the graph inputs get no buffer (so nothing shares their bytes):
// the program marks them external and the caller binds a buffer to each. A RESHAPE of one then
// copies it into a buffer of its own.
// Steps with `in_place[step]` (where their kernel can, ops::operator_in_place_scratch) get the
// in-place kernel's scratch, and their output may sit exactly on input 0 if it dies there.
MemoryProblem build_memory_problem(const ir::Graph& graph, kernels::Extension extension,
                                   uint32_t alignment, bool with_overlaps = true,
                                   std::span<const int32_t> order = {},
                                   const std::vector<bool>& in_place = {},
                                   bool inputs_outside_arena = false);

}  // namespace mote::passes
