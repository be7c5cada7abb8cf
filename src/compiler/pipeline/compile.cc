#include "compiler/pipeline/compile.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>

#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/ir/validate.h"
#include "compiler/passes/lower.h"
#include "compiler/planner/verify.h"

namespace mote::pipeline {
namespace {

constexpr std::array<Cpu, 10> kCpus = {{
    {"cortex-m0", kernels::Extension::kScalar},
    {"cortex-m0plus", kernels::Extension::kScalar},
    {"cortex-m3", kernels::Extension::kScalar},
    {"cortex-m23", kernels::Extension::kScalar},
    {"cortex-m4", kernels::Extension::kDsp},
    {"cortex-m7", kernels::Extension::kDsp},
    {"cortex-m33", kernels::Extension::kDsp},
    {"cortex-m35p", kernels::Extension::kDsp},
    {"cortex-m55", kernels::Extension::kMve},
    {"cortex-m85", kernels::Extension::kMve},
}};

}  // namespace

std::optional<Cpu> find_cpu(std::string_view name) {
  std::string key;
  for (char c : name) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (key.ends_with("+")) key = key.substr(0, key.size() - 1) + "plus";
  if (!key.starts_with("cortex-")) key = "cortex-" + key;
  for (const Cpu& cpu : kCpus) {
    if (cpu.name == key) return cpu;
  }
  return std::nullopt;
}

std::string cpu_names() {
  std::string names;
  for (const Cpu& cpu : kCpus) {
    if (!names.empty()) names += ", ";
    names += cpu.name;
  }
  return names;
}

PlannedGraph plan_graph(const ir::Graph& graph, const PlanRequest& request) {
  const std::optional<Cpu> cpu = find_cpu(request.cpu);
  if (!cpu) {
    throw InputError("unknown target '" + request.cpu + "'; known: " + cpu_names());
  }
  if (request.alignment == 0 || (request.alignment & (request.alignment - 1)) != 0 ||
      request.alignment > 4096) {
    throw InputError("alignment " + std::to_string(request.alignment) +
                     " is not a power of two up to 4096");
  }
  PlannedGraph planned{*cpu, passes::build_memory_problem(graph, cpu->extension, request.alignment),
                       {}, {}};
  planned.bound = planner::lower_bound(planned.memory.problem);
  planner::PlanOptions options;
  options.time_limit_ms = request.time_limit_ms;
  planned.plans = planner::plan_with_details(planned.memory.problem, request.algorithm, options);
  for (const planner::Plan& plan : planned.plans) {
    if (auto error = planner::verify(planned.memory.problem, plan)) {
      throw std::logic_error("plan by " + plan.algorithm + " failed verification: " + *error);
    }
  }
  return planned;
}

Compiled compile(const ir::Graph& graph, const CompileOptions& options) {
  ir::validate(graph);
  Compiled compiled{plan_graph(graph, options.plan), {}};
  passes::LowerOptions lower_options;
  lower_options.cpu = std::string(compiled.planned.cpu.name);
  lower_options.extension = compiled.planned.cpu.extension;
  lower_options.keep_names = options.keep_names;
  passes::LoweredProgram lowered = passes::lower(graph, compiled.planned.memory,
                                                 compiled.planned.plan(), compiled.planned.bound,
                                                 lower_options);
  compiled.program = emit::emit_program(std::move(lowered.program));
  compiled.tensor_index = std::move(lowered.tensor_index);
  return compiled;
}

}  // namespace mote::pipeline
