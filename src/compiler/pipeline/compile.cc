#include "compiler/pipeline/compile.h"

#include <algorithm>
#include <stdexcept>

#include "compiler/emit/assemble.h"
#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/lower.h"
#include "compiler/planner/verify.h"

namespace mote::pipeline {

namespace {

PlannedGraph plan_memory(const target::Cpu& cpu, passes::MemoryProblem memory,
                         const PlanRequest& request) {
  PlannedGraph planned;
  planned.cpu = cpu;
  planned.memory = std::move(memory);
  planned.bound = planner::lower_bound(planned.memory.problem);
  planner::PlanOptions options;
  options.time_limit_ms = request.time_limit_ms;
  options.node_limit = request.node_limit;
  planned.plans = planner::plan_with_details(planned.memory.problem, request.algorithm, options);
  for (const planner::Plan& plan : planned.plans) {
    if (auto error = planner::verify(planned.memory.problem, plan)) {
      throw std::logic_error("plan by " + plan.algorithm + " failed verification: " + *error);
    }
  }
  return planned;
}

}  // namespace

PlannedGraph plan_graph(const ir::Graph& graph, const PlanRequest& request) {
  const std::optional<target::Cpu> cpu = target::find_cpu(request.cpu);
  if (!cpu) {
    throw InputError("unknown target '" + request.cpu + "'; known: " + target::cpu_names());
  }
  if (request.alignment == 0 || (request.alignment & (request.alignment - 1)) != 0 ||
      request.alignment > 4096) {
    throw InputError("alignment " + std::to_string(request.alignment) +
                     " is not a power of two up to 4096");
  }
  PlannedGraph planned = plan_memory(
      *cpu, passes::build_memory_problem(graph, cpu->extension, request.alignment,
                                         request.overlap),
      request);
  if (!request.overlap || !request.in_place || cpu->extension == kernels::Extension::kMve) {
    return planned;
  }
  // Operators whose output may overlap input 0, dying there, and whose kernel can run in place:
  // all of them, and those whose plane costs fewer bytes beside the tensor than the lead of the
  // kernel they replace (a large early plane may cost more than the lead saves).
  const passes::MemoryProblem& memory = planned.memory;
  std::vector<bool> all(graph.operators.size(), false), cheaper = all;
  for (size_t k = 0; k < graph.operators.size(); ++k) {
    const ir::Operator& op = graph.operators[k];
    const uint64_t plane = op.inputs.empty() || op.inputs[0] < 0 || op.outputs.size() != 1
                               ? 0
                               : ops::operator_in_place_scratch(graph, op);
    if (plane == 0) continue;
    const int32_t out = memory.tensor_buffer[static_cast<size_t>(op.outputs[0])];
    const int32_t in = memory.tensor_buffer[static_cast<size_t>(op.inputs[0])];
    for (const planner::Overlap& o : memory.problem.overlaps) {
      if (static_cast<int32_t>(o.output) != out || static_cast<int32_t>(o.input) != in) continue;
      all[k] = true;
      cheaper[k] = static_cast<int64_t>(planner::align_up(plane, request.alignment)) < o.lead;
    }
  }
  for (const std::vector<bool>* in_place : {&all, &cheaper}) {
    if (std::find(in_place->begin(), in_place->end(), true) == in_place->end()) continue;
    if (in_place == &cheaper && cheaper == all) continue;
    PlannedGraph with_in_place = plan_memory(
        *cpu, passes::build_memory_problem(graph, cpu->extension, request.alignment,
                                           request.overlap, *in_place),
        request);
    if (with_in_place.plan().arena_bytes < planned.plan().arena_bytes) {
      planned = std::move(with_in_place);
    }
  }
  return planned;
}

Compiled compile(const ir::Graph& graph, const CompileOptions& options) {
  Compiled compiled;
  compiled.planned = plan_graph(graph, options.plan);
  const PlannedGraph& planned = compiled.planned;
  passes::LowerOptions lower_options;
  lower_options.keep_names = options.keep_names;
  passes::LoweredProgram lowered = passes::lower(graph, planned.memory, lower_options);
  compiled.program = emit::emit_program(emit::assemble_program(
      std::move(lowered.parts), planned.cpu, planned.memory.problem, planned.plan(),
      planned.bound));
  compiled.tensor_index = std::move(lowered.tensor_index);
  return compiled;
}

}  // namespace mote::pipeline
