#include "compiler/emit/assemble.h"

#include <memory>
#include <stdexcept>
#include <string>

#include "compiler/planner/report.h"

namespace mote::emit {

schema::ProgramT assemble_program(LoweredParts parts, const target::Cpu& cpu,
                                  const planner::Problem& problem, const planner::Plan& plan,
                                  const planner::LowerBound& bound) {
  schema::ProgramT& program = parts.program;
  if (parts.tensor_buffer.size() != program.tensors.size() ||
      parts.scratch_buffer.size() != program.operators.size()) {
    throw std::logic_error("assemble_program: buffers given for " +
                           std::to_string(parts.tensor_buffer.size()) + " tensors and " +
                           std::to_string(parts.scratch_buffer.size()) + " operators");
  }
  for (size_t t = 0; t < program.tensors.size(); ++t) {
    const int32_t buffer = parts.tensor_buffer[t];
    if (buffer == kNoPlannerBuffer) continue;
    const auto b = static_cast<size_t>(buffer);
    schema::TensorT& tensor = *program.tensors[t];
    tensor.offset = static_cast<uint32_t>(plan.offsets[b]);
    tensor.first_step = static_cast<uint32_t>(problem.buffers[b].first_step);
    tensor.last_step = static_cast<uint32_t>(problem.buffers[b].last_step);
  }
  for (size_t k = 0; k < program.operators.size(); ++k) {
    const int32_t buffer = parts.scratch_buffer[k];
    if (buffer == kNoPlannerBuffer) continue;
    const auto b = static_cast<size_t>(buffer);
    program.operators[k]->scratch = std::make_unique<schema::Region>(
        static_cast<uint32_t>(plan.offsets[b]), static_cast<uint32_t>(problem.buffers[b].size));
  }

  // An operator runs backward where the plan put its output over a dying input only as its
  // backward rule allows (above the input); the runtime then runs it so, and checks that rule.
  // One whose output may sit exactly on its input runs in place.
  const planner::OverlapIndex overlaps(problem);
  for (size_t k = 0; k < program.operators.size(); ++k) {
    schema::OperatorT& op = *program.operators[k];
    if (op.outputs.size() != 1 || op.outputs[0] < 0) continue;
    const int32_t out = parts.tensor_buffer[static_cast<size_t>(op.outputs[0])];
    if (out == kNoPlannerBuffer) continue;
    const auto o = static_cast<size_t>(out);
    for (int32_t t : op.inputs) {
      if (t < 0 || parts.tensor_buffer[static_cast<size_t>(t)] == kNoPlannerBuffer) continue;
      const auto i = static_cast<size_t>(parts.tensor_buffer[static_cast<size_t>(t)]);
      // The in-place kernel was chosen before planning (its scratch is planned): it runs so
      // wherever the plan put its output.
      if (i != o && overlaps.exact(o, i)) op.in_place = true;
      const auto back = overlaps.back_lead(o, i);
      if (i == o || !back) continue;
      const uint64_t out_at = plan.offsets[o], in_at = plan.offsets[i];
      const bool shared = out_at < in_at + problem.buffers[i].size &&
                          in_at < out_at + problem.buffers[o].size;
      const bool forward = static_cast<int64_t>(out_at) + *overlaps.lead(o, i) <=
                           static_cast<int64_t>(in_at);
      if (shared && !forward) op.backward = true;
    }
  }

  program.target = std::make_unique<schema::TargetT>();
  program.target->cpu = cpu.name;
  program.target->extension = static_cast<schema::Extension>(cpu.extension);
  program.arena_size = static_cast<uint32_t>(plan.arena_bytes);
  program.arena_alignment = planner::arena_alignment(problem);

  const planner::PlanFigures split = planner::plan_figures(problem, bound, plan);
  program.plan = std::make_unique<schema::PlanStatsT>();
  // "auto (exact)": what was asked for, and which algorithm's offsets won.
  program.plan->algorithm = plan.chosen.empty() || plan.chosen == plan.algorithm
                                ? plan.algorithm
                                : plan.algorithm + " (" + plan.chosen + ")";
  program.plan->lower_bound = static_cast<uint32_t>(bound.bytes);
  program.plan->activation_bytes = static_cast<uint32_t>(split.activation_bytes);
  program.plan->scratch_bytes = static_cast<uint32_t>(split.scratch_bytes);
  program.plan->optimal = plan.optimal;
  program.plan->state_bytes = static_cast<uint32_t>(split.state_bytes);
  program.constants = parts.constants.take();
  return std::move(parts.program);
}

}  // namespace mote::emit
