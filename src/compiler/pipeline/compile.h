#pragma once
// The compiler pipeline: graph -> memory problem -> plan -> verify -> lower -> emit.
// `mote compile`, `mote plan`, `mote demo`, the tests and the benchmarks all go through here, so
// every program Mote writes has a verified plan.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/passes/memory_problem.h"
#include "compiler/passes/row_stages.h"
#include "compiler/planner/lower_bound.h"
#include "compiler/planner/planner.h"
#include "compiler/planner/report.h"
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
  // kSearch: a graph with branches runs in the topological order whose plan is smallest (the
  // model's order unless another is smaller); kModel: the model's order, as written.
  enum class Order : uint8_t { kModel, kSearch };
  Order order = Order::kSearch;
  // With overlap: kernels that can run in place through their own scratch (a depthwise
  // convolution, one channel plane at a time) do so where that gives a smaller arena. Not on
  // Helium CPUs, whose depthwise kernels work 16 channels at once: the plane kernel is scalar.
  bool in_place = true;
  // Graph inputs get no arena bytes: the program marks them external and the caller binds a
  // buffer to each (Executor::bind_input), which no operator writes.
  bool inputs_outside_arena = false;
  // Row-streamed stages: the first run of operators that can compute a few output
  // rows at a time may run as one stage, its inner tensors held as rings of rows, where that
  // gives a smaller arena (passes/row_stages.h). Asked for: it costs instructions (at most 5 %
  // on the shared models, bench/firmware_instructions.md) and changes the program written.
  bool stream = false;
  // The most extra instructions in-place kernels or a streamed stage may cost, as a fraction of
  // the inference's (estimated from measured kernel costs, instruction_estimate.h): a smaller
  // arena that costs more is not taken, nor one whose cost the CPU has no measurements for.
  // Infinity: the smallest arena whatever it costs.
  double cost_budget = std::numeric_limits<double>::infinity();
  // A PAD whose only reader is a convolution, depthwise convolution or max pool becomes that
  // operator's own padding where that is exact (passes/fold_pads.h); false: every PAD runs as
  // written (the reference the folded programs are compared with).
  bool fold_pads = true;
  // A float32 graph input whose only reader is a QUANTIZE is held quantized, the QUANTIZE left
  // out: the caller writes floats through Executor::write_input, which quantizes them
  // (passes/quantized_inputs.h). Not with inputs_outside_arena (the caller's float buffer is read
  // in place). false: the float input sits in the arena and the program runs the QUANTIZE.
  bool quantize_float_inputs = true;
};

// The presets of --optimize, as X-CUBE-AI's users know them. kTime: nothing that costs
// instructions (no stage, no in-place kernel dearer than the whole one). kBalanced: a smaller
// arena where its estimated cost is at most kBalancedBudget of the inference's. kRam: the
// smallest arena whatever it costs.
enum class Optimize : uint8_t { kTime, kBalanced, kRam };
inline constexpr double kBalancedBudget = 0.05;
// Row-streamed stages a plan takes at most, one at a time (each round prices every stage left).
inline constexpr int32_t kMaxStreamedStages = 8;
// "time", "balanced", "ram" and back; nullopt for anything else.
std::string_view to_string(Optimize optimize);
std::optional<Optimize> optimize_from_string(std::string_view text);
// Sets request.stream and request.cost_budget as the preset says (in_place stays the caller's:
// --no-in-place narrows every preset).
void apply_optimize(Optimize optimize, PlanRequest& request);

// "model" or "search" (the --order values); nullopt for anything else.
std::optional<PlanRequest::Order> order_from_string(std::string_view text);

struct PlannedGraph {
  // The graph as planned and emitted: the model's operators in the order the program runs them,
  // without the QUANTIZEs of float inputs held quantized, nor the PADs folded into their readers (order.order[step] is the model's index of the
  // operator at that step; tensors keep theirs).
  // Step indices of the plan, the reports and the program refer to this graph.
  ir::Graph graph;
  planner::OrderSummary order;
  target::Cpu cpu;
  passes::MemoryProblem memory;
  planner::LowerBound bound;
  // The plan used first, then (for auto) every algorithm auto ran, each verified.
  std::vector<planner::Plan> plans;
  const planner::Plan& plan() const { return plans.front(); }
  // With PlanRequest::stream: the stages the plan holds, in order, and the arena without them;
  // the stages priced, best first in each round (operators [first, last] and the arena with it
  // and the stages taken before that round): every stage alone, then those that lower the
  // arena further.
  std::vector<passes::RowStage> stages;
  uint64_t unstreamed_arena = 0;
  struct StreamOption {
    int32_t first, last;
    uint64_t arena;
    std::optional<double> extra_instructions;  // estimated (nullopt: unmeasured CPU)
    int32_t round = 0;  // the stages taken before it (0: priced alone)
  };
  std::vector<StreamOption> stream_options;
  // One inference on the CPU's whole-tensor kernels, estimated (nullopt: unmeasured CPU), and
  // what the plan's in-place kernels or stage add to it.
  std::optional<double> estimated_instructions;
  std::optional<double> extra_instructions;
  // A smaller arena PlanRequest::cost_budget refused: its bytes and estimated extra cost (0
  // bytes: none refused).
  uint64_t refused_arena = 0;
  std::optional<double> refused_extra;
  // PADs that became their reader's padding (PlanRequest::fold_pads).
  int32_t folded_pads = 0;
  // Float inputs held quantized (PlanRequest::quantize_float_inputs), and the bytes the arena
  // would hold for them as float.
  int32_t quantized_inputs = 0;
  uint64_t float_input_bytes = 0;
};

// "row streaming: operators 0-3 as one stage (167 row calls, rings 3,840 bytes), arena 31,600
// bytes (36,880 without)" (or "as 2 stages: operators 0-3 (...), operators 9-14 (...)"), or why
// nothing streams, then a line per stage priced ("  operators 0-4: 31,984 bytes, +0.7 %
// instructions"; in later rounds "  with 1 stage taken, operators 9-14: ..."); for
// PlanRequest::stream.
std::string stream_sentence(const PlannedGraph& planned);
// What the plan's in-place kernels and stage cost against running whole, and what the budget
// refused: "instructions: +0.7 % estimated on cortex-m4 (row calls; 7.6 M whole)"; "" when the
// plan takes nothing that costs and refused nothing.
std::string cost_sentence(const PlannedGraph& planned, const PlanRequest& request);

// "float inputs: input 0 (image) held quantized as int8 (19,200 bytes; 76,800 as float32): write
// it with Executor::write_input or mote_write_input_float ..."; "" when no input is so held.
std::string quantized_inputs_sentence(const PlannedGraph& planned);

// Decides the operators' order (the one place that does), builds the problem for the request's
// CPU and plans it. For a graph with branches and PlanRequest::Order::kSearch, the orders are
// ranked by passes::rank_orders and the best is planned next to the model's order (so auto's
// time limit applies twice); the smaller plan wins, the model's order on a tie. Where kernels may
// run in place, each order is also planned with them (in_place_candidates), and the smaller
// arena is kept (the first on a tie: the raster kernels are the faster). Throws
// mote::InputError for an unknown CPU or alignment, std::logic_error if a plan fails
// verification (a planner bug).
PlannedGraph plan_graph(const ir::Graph& graph, const PlanRequest& request);

// TensorFlow Lite Micro's problem for a graph, which its GreedyMemoryPlanner (first-fit) plans:
// the model's order, every output apart from its inputs, no kernel in place, no stage streamed,
// the graph inputs in the arena; scratch as the request's CPU's kernels need it. The first-fit
// row of plan_graph's plans (after the plan used) is planned on it for the model as given (its
// PADs run, its float inputs in the arena, as TFLM runs them), whatever the request; its steps
// are the model's operators.
planner::Problem tflm_problem(const ir::Graph& graph, const PlanRequest& request);

struct CompileOptions {
  PlanRequest plan;
  bool keep_names = false;
  // Record the CRC-32 of the constants (Program.constants_crc32), which the runtime checks at load.
  bool checksum = false;
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
