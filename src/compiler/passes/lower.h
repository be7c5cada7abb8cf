#pragma once
// Lowering: a validated graph becomes the operators and tensors the runtime executes.
// Everything TFLite's kernels compute in Prepare is computed here, once, ahead of time:
// requantization multipliers and shifts, clamp ranges of fused activations, kernel sums,
// padding amounts, softmax/logistic/hard-swish fixed-point parameters. Parameter-only inputs
// (reshape shapes, pad amounts, mean axes, transpose permutations) are folded into options and
// only the tensors the runtime reads are kept. Where memory goes is not lowering's: arena tensors
// and scratch keep their planner buffers, and emit::assemble_program places them by the plan.

#include <cstdint>

#include <vector>

#include "compiler/emit/assemble.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/memory_problem.h"
#include "mote/kernels/scratch.h"

namespace mote::passes {

struct LowerOptions {
  bool keep_names = false;  // tensor names cost flash; off unless asked for
  // The target's kernels: an operator whose shape its extension kernel does not take is marked
  // portable_kernel (so an image links the portable kernel only where a program needs it).
  kernels::Extension extension = kernels::Extension::kScalar;
};

struct LoweredProgram {
  emit::LoweredParts parts;
  // Per IR tensor: its index in the program, or -1 when the program does not keep it (parameter
  // tensors folded into options, tensors nothing reads).
  std::vector<int32_t> tensor_index;
};

// `memory` is the graph's memory problem (its buffers are what the parts name). Throws
// mote::InputError for a graph the kernels cannot run (a parameter outside what TFLite allows),
// naming the operator.
LoweredProgram lower(const ir::Graph& graph, const MemoryProblem& memory,
                     const LowerOptions& options);

}  // namespace mote::passes
