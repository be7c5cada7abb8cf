#include "compiler/pipeline/compile.h"

#include <stdexcept>

#include "compiler/emit/assemble.h"
#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/passes/lower.h"
#include "compiler/planner/verify.h"

namespace mote::pipeline {

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
  PlannedGraph planned;
  planned.cpu = *cpu;
  planned.memory = passes::build_memory_problem(graph, cpu->extension, request.alignment,
                                                request.overlap, request.inputs_outside_arena);
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
