#include "compiler/emit/assemble.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "compiler/planner/report.h"

namespace mote::emit {
namespace {

// Two steps. Buffers: the input (0), a hidden activation (1), operator 0's scratch (2) and the
// output (3). Tensor 1 is a constant; tensor 4 is a reshape of tensor 2 and shares its buffer.
struct Example {
  LoweredParts parts;
  planner::Problem problem;
};

Example example() {
  Example e;
  e.problem.num_steps = 2;
  auto buffer = [&](planner::BufferKind kind, uint64_t size, int32_t first, int32_t last) {
    planner::Buffer b;
    b.kind = kind;
    b.size = size;
    b.first_step = first;
    b.last_step = last;
    e.problem.buffers.push_back(b);
  };
  buffer(planner::BufferKind::kInput, 64, 0, 0);
  buffer(planner::BufferKind::kActivation, 32, 0, 1);
  buffer(planner::BufferKind::kScratch, 100, 0, 0);
  buffer(planner::BufferKind::kOutput, 16, 1, 1);

  schema::ProgramT& program = e.parts.program;
  for (int i = 0; i < 5; ++i) program.tensors.push_back(std::make_unique<schema::TensorT>());
  program.tensors[1]->location = schema::Location::Constant;
  program.tensors[1]->offset = e.parts.constants.add(std::vector<uint8_t>{1, 2, 3});
  e.parts.tensor_buffer = {0, kNoPlannerBuffer, 1, 3, 1};  // tensor 4 aliases tensor 2
  for (int i = 0; i < 2; ++i) program.operators.push_back(std::make_unique<schema::OperatorT>());
  e.parts.scratch_buffer = {2, kNoPlannerBuffer};
  return e;
}

TEST(AssembleProgram, PlacesTensorsAndScratchByThePlan) {
  Example e = example();
  const planner::Plan plan = planner::plan(e.problem, planner::Algorithm::kBestFit);
  const planner::LowerBound bound = planner::lower_bound(e.problem);
  const schema::ProgramT program = assemble_program(
      std::move(e.parts), {"cortex-m4", kernels::Extension::kDsp}, e.problem, plan, bound);

  const std::pair<size_t, size_t> tensor_buffer[] = {{0, 0}, {2, 1}, {3, 3}, {4, 1}};
  for (const auto& [t, b] : tensor_buffer) {
    EXPECT_EQ(program.tensors[t]->offset, plan.offsets[b]) << t;
    const planner::Buffer& buffer = e.problem.buffers[b];
    EXPECT_EQ(program.tensors[t]->first_step, static_cast<uint32_t>(buffer.first_step));
    EXPECT_EQ(program.tensors[t]->last_step, static_cast<uint32_t>(buffer.last_step));
  }
  EXPECT_EQ(program.tensors[1]->offset, 0u);  // constants keep their blob offset
  ASSERT_NE(program.operators[0]->scratch, nullptr);
  EXPECT_EQ(program.operators[0]->scratch->offset(), plan.offsets[2]);
  EXPECT_EQ(program.operators[0]->scratch->size(), 100u);
  EXPECT_EQ(program.operators[1]->scratch, nullptr);
  EXPECT_EQ(program.constants, (std::vector<uint8_t>{1, 2, 3}));
}

TEST(AssembleProgram, RecordsTargetArenaAndPlanStatistics) {
  Example e = example();
  planner::Plan plan = planner::plan(e.problem, planner::Algorithm::kBestFit);
  plan.algorithm = "auto";
  plan.chosen = "best-fit";
  const planner::LowerBound bound = planner::lower_bound(e.problem);
  const planner::PlanFigures figures = planner::plan_figures(e.problem, bound, plan);
  const schema::ProgramT program = assemble_program(
      std::move(e.parts), {"cortex-m55", kernels::Extension::kMve}, e.problem, plan, bound);

  EXPECT_EQ(program.target->cpu, "cortex-m55");
  EXPECT_EQ(program.target->extension, schema::Extension::Mve);
  EXPECT_EQ(program.arena_size, plan.arena_bytes);
  EXPECT_EQ(program.arena_alignment, planner::arena_alignment(e.problem));
  EXPECT_EQ(program.plan->algorithm, "auto (best-fit)");
  EXPECT_EQ(program.plan->lower_bound, bound.bytes);
  EXPECT_EQ(program.plan->activation_bytes, figures.activation_bytes);
  EXPECT_EQ(program.plan->scratch_bytes, figures.scratch_bytes);
  EXPECT_EQ(program.plan->optimal, plan.optimal);
}

TEST(AssembleProgram, RefusesPartsThatDoNotMatchTheirBuffers) {
  Example e = example();
  e.parts.scratch_buffer.pop_back();
  const planner::Plan plan = planner::plan(e.problem, planner::Algorithm::kNaive);
  EXPECT_THROW(assemble_program(std::move(e.parts), {"cortex-m4", kernels::Extension::kDsp},
                                e.problem, plan, planner::lower_bound(e.problem)),
               std::logic_error);
}

}  // namespace
}  // namespace mote::emit
