#pragma once
// Program assembly: the emitter's half of compiling. Lowering leaves the operators with their
// kernel parameters, the tensors and the constant data; the plan decides where each arena tensor
// and scratch buffer lives. assemble_program joins the two and adds what the program records
// about the plan: the target, the arena's size and alignment, and the plan statistics.

#include <cstdint>
#include <vector>

#include "compiler/emit/emit.h"
#include "compiler/planner/lower_bound.h"
#include "compiler/planner/planner.h"
#include "compiler/planner/problem.h"
#include "compiler/target/target.h"
#include "mote/schema/mote_generated.h"

namespace mote::emit {

inline constexpr int32_t kNoPlannerBuffer = -1;

// A program as lowering leaves it, before memory is placed.
struct LoweredParts {
  // Tensors, operators, graph inputs and outputs; arena offsets, lifetimes and scratch regions
  // are left for assemble_program.
  schema::ProgramT program;
  ConstantPool constants;
  // Per program tensor: the planner buffer holding its bytes, or kNoPlannerBuffer (a constant).
  std::vector<int32_t> tensor_buffer;
  // Per operator: its scratch buffer, or kNoPlannerBuffer when it needs none.
  std::vector<int32_t> scratch_buffer;
};

// `plan` must be a verified plan of `problem`, the problem the buffer indices of `parts` refer
// to, and `bound` its lower bound. The result goes to emit_program.
schema::ProgramT assemble_program(LoweredParts parts, const target::Cpu& cpu,
                                  const planner::Problem& problem, const planner::Plan& plan,
                                  const planner::LowerBound& bound);

}  // namespace mote::emit
