#pragma once
// Lowering: a validated graph and its memory plan become the program the runtime executes.
// Everything TFLite's kernels compute in Prepare is computed here, once, ahead of time:
// requantization multipliers and shifts, clamp ranges of fused activations, kernel sums,
// padding amounts, softmax/logistic/hard-swish fixed-point parameters. Parameter-only inputs
// (reshape shapes, pad amounts, mean axes, transpose permutations) are folded into options and
// only the tensors the runtime reads are kept.

#include <cstdint>
#include <string>

#include "compiler/ir/graph.h"
#include "compiler/passes/memory_problem.h"
#include "compiler/planner/lower_bound.h"
#include "compiler/planner/planner.h"
#include "mote/schema/mote_generated.h"

namespace mote::passes {

struct LowerOptions {
  std::string cpu;               // e.g. "cortex-m55"
  kernels::Extension extension = kernels::Extension::kMve;
  bool keep_names = false;       // tensor names cost flash; off unless asked for
};

struct LoweredProgram {
  schema::ProgramT program;
  // Per IR tensor: its index in the program, or -1 when the program does not keep it (parameter
  // tensors folded into options, tensors nothing reads).
  std::vector<int32_t> tensor_index;
};

// `plan` must be a verified plan of `memory.problem`. Throws mote::InputError for a graph the
// kernels cannot run (a parameter outside what TFLite allows), naming the operator.
LoweredProgram lower(const ir::Graph& graph, const MemoryProblem& memory,
                     const planner::Plan& plan, const planner::LowerBound& bound,
                     const LowerOptions& options);

}  // namespace mote::passes
