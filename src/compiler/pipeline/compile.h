#pragma once
// The compiler pipeline: graph -> memory problem -> plan -> verify -> lower -> emit.
// `mote compile`, `mote plan`, `mote demo`, the tests and the benchmarks all go through here, so
// every program Mote writes has a verified plan.

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/passes/memory_problem.h"
#include "compiler/planner/lower_bound.h"
#include "compiler/planner/planner.h"
#include "compiler/target/target.h"

namespace mote::pipeline {

struct PlanRequest {
  std::string cpu = "cortex-m55";  // any name target::find_cpu accepts
  planner::Algorithm algorithm = planner::Algorithm::kAuto;
  uint32_t alignment = 16;
  double time_limit_ms = 1000;
  uint64_t node_limit = 0;  // also stop the exact search after this many nodes (0: no limit)
  // Outputs may overlap dying inputs where the kernels' overlap rules allow (false: every
  // operator's inputs and outputs apart, the plans before overlap rules existed).
  bool overlap = true;
  // Graph inputs get no arena bytes: the program marks them external and the caller binds a
  // buffer to each (Executor::bind_input), which no operator writes.
  bool inputs_outside_arena = false;
};

struct PlannedGraph {
  target::Cpu cpu;
  passes::MemoryProblem memory;
  planner::LowerBound bound;
  // The plan used first, then (for auto) every algorithm auto ran, each verified.
  std::vector<planner::Plan> plans;
  const planner::Plan& plan() const { return plans.front(); }
};

// Builds the problem for the request's CPU and plans it. Throws mote::InputError for an unknown
// CPU or alignment, std::logic_error if a plan fails verification (a planner bug).
PlannedGraph plan_graph(const ir::Graph& graph, const PlanRequest& request);

struct CompileOptions {
  PlanRequest plan;
  bool keep_names = false;
};

struct Compiled {
  PlannedGraph planned;
  std::vector<uint8_t> program;  // the .mote bytes, already loaded once by the runtime
  // Per IR tensor: its index in the program, or -1 where the program does not keep it.
  std::vector<int32_t> tensor_index;
};

// Plans a graph, lowers it and emits the program. The graph must have passed ops::validate (the
// TFLite reader and the builder run it on every graph they return).
Compiled compile(const ir::Graph& graph, const CompileOptions& options);

}  // namespace mote::pipeline
