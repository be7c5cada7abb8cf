#include "compiler/pipeline/compile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "compiler/emit/assemble.h"
#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/fold_pads.h"
#include "compiler/passes/quantized_inputs.h"
#include "compiler/passes/lower.h"
#include "compiler/passes/operator_order.h"
#include "compiler/pipeline/instruction_estimate.h"
#include "compiler/planner/lower_bound.h"
#include "compiler/planner/verify.h"
#include "mote/runtime/crc32.h"
#include "program/stage_schedule.h"

namespace mote::pipeline {

std::optional<PlanRequest::Order> order_from_string(std::string_view text) {
  if (text == "model") return PlanRequest::Order::kModel;
  if (text == "search") return PlanRequest::Order::kSearch;
  return std::nullopt;
}

namespace {

// Which steps of a plan run their kernel in place, to plan next: all that can (an output that
// may overlap input 0, dying there, and a kernel with an in-place form), and those whose plane
// costs fewer bytes beside the tensor than the lead of the kernel they replace (a large early
// plane may cost more than the lead saves). Empty sets and repeats are left out.
std::vector<std::vector<bool>> in_place_candidates(const PlannedGraph& planned,
                                                   uint32_t alignment) {
  const ir::Graph& graph = planned.graph;
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
      cheaper[k] = static_cast<int64_t>(planner::align_up(plane, alignment)) < o.lead;
    }
  }
  std::vector<std::vector<bool>> sets;
  for (std::vector<bool>* set : {&all, &cheaper}) {
    if (std::find(set->begin(), set->end(), true) == set->end()) continue;
    if (std::find(sets.begin(), sets.end(), *set) != sets.end()) continue;
    sets.push_back(std::move(*set));
  }
  return sets;
}

// "+0.7 %" (one decimal), "-1.2 %".
std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f %%", fraction * 100);
  return text;
}

// Whether a choice that costs `extra` instructions fits the request's budget against an
// inference of `whole` (both estimated; an unmeasured cost fits only an unlimited budget).
bool affordable(const PlanRequest& request, std::optional<double> whole,
                std::optional<double> extra) {
  if (std::isinf(request.cost_budget)) return true;
  return whole && extra && *extra <= request.cost_budget * *whole;
}

// Keeps the smallest arena the budget refused, for the report.
void note_refused(PlannedGraph& planned, uint64_t arena, std::optional<double> extra) {
  if (planned.refused_arena != 0 && planned.refused_arena <= arena) return;
  planned.refused_arena = arena;
  planned.refused_extra = extra;
}

// `unstreamed` with `stages` streamed, in that order.
passes::MemoryProblem with_stages(const ir::Graph& graph, passes::MemoryProblem problem,
                                  const std::vector<passes::RowStage>& stages) {
  for (const passes::RowStage& stage : stages) {
    problem = passes::streamed_memory(graph, problem, stage);
  }
  return problem;
}

// The plans of `problem` (the first used), each verified.
std::vector<planner::Plan> verified_plans(const planner::Problem& problem,
                                          const PlanRequest& request,
                                          const planner::PlanOptions& options) {
  std::vector<planner::Plan> plans = planner::plan_with_details(problem, request.algorithm, options);
  for (const planner::Plan& plan : plans) {
    if (auto error = planner::verify(problem, plan)) {
      throw std::logic_error("streamed plan by " + plan.algorithm +
                             " failed verification: " + *error);
    }
  }
  return plans;
}

// The most bytes live at one step of [first, last], of `live` (planner::live_bytes_per_step).
uint64_t peak_over(const std::vector<uint64_t>& live, int32_t first, int32_t last) {
  uint64_t most = 0;
  for (int32_t step = first; step <= last && static_cast<size_t>(step) < live.size(); ++step) {
    most = std::max(most, live[static_cast<size_t>(step)]);
  }
  return most;
}

// Row-streamed stages of the planned order, chosen one at a time among those apart from the
// stages taken: the one whose plan is the smallest while it is smaller than the plan so far, or
// else, at the same arena, the one that lowers the bytes live over its own steps the most (two
// peaks of the same height elsewhere: neither stage alone lowers the arena, both together do).
// Every choice must leave the stages taken within the budget. Stages that end up lowering
// nothing are dropped again, and all of them if the arena is not smaller than without. The
// stages' operators then run the row kernels (no in-place or backward ones in the whole plan:
// the problem is built without in-place kernels, and a stage's tensors take part in no other
// overlap).
void stream_stages(PlannedGraph& planned, const PlanRequest& request,
                   const planner::PlanOptions& options) {
  const ir::Graph& graph = planned.graph;
  const passes::MemoryProblem unstreamed =
      passes::build_memory_problem(graph, planned.cpu.extension, request.alignment,
                                   request.overlap, {}, {}, request.inputs_outside_arena);
  planned.unstreamed_arena = planned.plan().arena_bytes;
  passes::MemoryProblem base = unstreamed;
  uint64_t arena = planned.unstreamed_arena;
  std::optional<double> spent = 0.0;  // the stages taken, estimated
  std::vector<planner::Plan> plans;
  std::vector<passes::RowStage> taken;
  for (int32_t round = 0; round < kMaxStreamedStages; ++round) {
    const std::vector<passes::StreamCandidate> candidates =
        passes::stream_candidates(graph, base, options.time_limit_ms, taken);
    const passes::StreamCandidate* chosen = nullptr;
    std::optional<double> chosen_spent;
    uint64_t relief = 0;  // of a stage chosen at the same arena
    std::vector<uint64_t> base_live;  // the bytes live at each step of `base`, once asked
    for (const passes::StreamCandidate& c : candidates) {
      const std::optional<double> extra = stage_extra(graph, c.stage, planned.cpu.extension);
      // The first round prices every stage alone; later ones list those that lower the arena.
      if (round == 0 || c.arena < arena) {
        planned.stream_options.push_back({c.stage.first, c.stage.last, c.arena, extra, round});
      }
      // Best first: once one lowers the arena, the rest do not beat it.
      if (c.arena > arena || (chosen != nullptr && chosen->arena < arena)) continue;
      const std::optional<double> total =
          spent && extra ? std::optional<double>(*spent + *extra) : std::nullopt;
      if (!affordable(request, planned.estimated_instructions, total)) {
        if (c.arena < arena) note_refused(planned, c.arena, total);
        continue;
      }
      if (c.arena < arena) {
        chosen = &c;
        chosen_spent = total;
        continue;
      }
      if (base_live.empty()) base_live = planner::live_bytes_per_step(base.problem);
      const uint64_t before = peak_over(base_live, c.stage.first, c.stage.last);
      const uint64_t after = peak_over(
          planner::live_bytes_per_step(passes::streamed_memory(graph, base, c.stage).problem),
          c.stage.first, c.stage.last);
      if (after < before && before - after > relief) {
        relief = before - after;
        chosen = &c;
        chosen_spent = total;
      }
    }
    if (chosen == nullptr) break;
    passes::MemoryProblem streamed = passes::streamed_memory(graph, base, chosen->stage);
    std::vector<planner::Plan> tried = verified_plans(streamed.problem, request, options);
    if (tried.front().arena_bytes > arena) break;
    arena = tried.front().arena_bytes;
    base = std::move(streamed);
    plans = std::move(tried);
    spent = chosen_spent;
    taken.push_back(chosen->stage);
  }
  if (arena >= planned.unstreamed_arena) return;
  // A stage taken at the same arena whose peak a later one did not make the arena's: dropped.
  for (size_t k = taken.size(); k-- > 0;) {
    std::vector<passes::RowStage> others = taken;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(k));
    passes::MemoryProblem without = with_stages(graph, unstreamed, others);
    std::vector<planner::Plan> tried = verified_plans(without.problem, request, options);
    if (tried.front().arena_bytes > arena) continue;
    taken = std::move(others);
    base = std::move(without);
    plans = std::move(tried);
  }
  // The program lists its stages in order.
  std::sort(taken.begin(), taken.end(),
            [](const passes::RowStage& a, const passes::RowStage& b) { return a.first < b.first; });
  spent = 0.0;
  for (const passes::RowStage& stage : taken) {
    const std::optional<double> extra = stage_extra(graph, stage, planned.cpu.extension);
    spent = spent && extra ? std::optional<double>(*spent + *extra) : std::nullopt;
  }
  planned.stages = std::move(taken);
  planned.memory = std::move(base);
  planned.bound = planner::lower_bound(planned.memory.problem);
  planned.plans = std::move(plans);
  planned.extra_instructions = spent;
}

}  // namespace

std::string_view to_string(Optimize optimize) {
  switch (optimize) {
    case Optimize::kTime: return "time";
    case Optimize::kBalanced: return "balanced";
    case Optimize::kRam: return "ram";
  }
  return "";
}

std::optional<Optimize> optimize_from_string(std::string_view text) {
  for (Optimize o : {Optimize::kTime, Optimize::kBalanced, Optimize::kRam}) {
    if (text == to_string(o)) return o;
  }
  return std::nullopt;
}

void apply_optimize(Optimize optimize, PlanRequest& request) {
  request.stream = optimize != Optimize::kTime;
  request.cost_budget = optimize == Optimize::kTime       ? 0
                        : optimize == Optimize::kBalanced ? kBalancedBudget
                                                          : std::numeric_limits<double>::infinity();
}

std::string stream_sentence(const PlannedGraph& planned) {
  const auto bytes = [](uint64_t n) { return planner::grouped(n); };
  std::string out;
  if (planned.stages.empty()) {
    out = "row streaming: no stage gives a smaller arena than " +
          bytes(planned.unstreamed_arena) + " bytes; nothing streams";
  } else {
    const auto stage = [&](const passes::RowStage& s) {
      return "operators " + std::to_string(s.first) + "-" + std::to_string(s.last) + " (" +
             std::to_string(s.schedule.size()) + " row calls, rings " +
             bytes(static_cast<uint64_t>(s.ring_bytes())) + " bytes)";
    };
    if (planned.stages.size() == 1) {
      const passes::RowStage& s = planned.stages.front();
      out = "row streaming: operators " + std::to_string(s.first) + "-" + std::to_string(s.last) +
            " as one stage (" + std::to_string(s.schedule.size()) + " row calls, rings " +
            bytes(static_cast<uint64_t>(s.ring_bytes())) + " bytes)";
    } else {
      out = "row streaming: " + std::to_string(planned.stages.size()) + " stages: ";
      for (size_t k = 0; k < planned.stages.size(); ++k) {
        out += (k == 0 ? "" : ", ") + stage(planned.stages[k]);
      }
    }
    out += ", arena " + bytes(planned.plan().arena_bytes) + " bytes (" +
           bytes(planned.unstreamed_arena) + " without)";
  }
  out += planned.stream_options.empty() ? "" : "; stages priced:";
  for (const PlannedGraph::StreamOption& o : planned.stream_options) {
    out += "\n  ";
    if (o.round > 0) {
      out += "with " + std::to_string(o.round) + (o.round == 1 ? " stage" : " stages") +
             " taken, ";
    }
    out += "operators " + std::to_string(o.first) + "-" + std::to_string(o.last) + ": " +
           bytes(o.arena) + " bytes";
    if (o.extra_instructions && planned.estimated_instructions) {
      out += ", " + percent(*o.extra_instructions / *planned.estimated_instructions) +
             " instructions";
    }
  }
  return out;
}

std::string cost_sentence(const PlannedGraph& planned, const PlanRequest& request) {
  const std::string cpu = planned.cpu.name;
  std::string out;
  if (planned.extra_instructions && planned.estimated_instructions) {
    out = "instructions: " + percent(*planned.extra_instructions / *planned.estimated_instructions) +
          " estimated on " + cpu + " for " +
          (planned.stages.empty()        ? "in-place kernels"
           : planned.stages.size() == 1 ? "the stage's row calls"
                                        : "the stages' row calls") +
          " (measured kernel costs, targets/cortex-m/instruction_costs.tsv)";
  }
  if (planned.refused_arena != 0 && planned.refused_arena < planned.plan().arena_bytes) {
    out += std::string(out.empty() ? "" : "; ") + "an arena of " +
           planner::grouped(planned.refused_arena) + " bytes was not taken: ";
    if (planned.refused_extra && planned.estimated_instructions) {
      out += "it costs " + percent(*planned.refused_extra / *planned.estimated_instructions) +
             " instructions, over the budget of " + percent(request.cost_budget);
    } else {
      out += "no measured kernel costs for " + cpu + " to weigh it by";
    }
    out += " (--optimize ram takes it)";
  }
  return out;
}

std::string quantized_inputs_sentence(const PlannedGraph& planned) {
  const ir::Graph& g = planned.graph;
  std::string held;
  uint64_t bytes = 0;
  for (size_t i = 0; i < g.float_inputs.size(); ++i) {
    if (!g.float_inputs[i]) continue;
    const ir::Tensor& t = g.tensors[static_cast<size_t>(g.inputs[i])];
    held += std::string(held.empty() ? "" : ", ") + "input " + std::to_string(i) +
            (t.name.empty() ? "" : " (" + t.name + ")") + " as " +
            (t.type == ir::DataType::kInt16 ? "int16" : "int8");
    bytes += static_cast<uint64_t>(t.num_bytes());
  }
  if (held.empty()) return "";
  return "float inputs held quantized: " + held + ", " + planner::grouped(bytes) +
         " bytes in the arena (" + planner::grouped(planned.float_input_bytes) +
         " as float32), the model's QUANTIZE left out: write the floats with "
         "Executor::write_input or mote_write_input_float, which quantize them as it would "
         "(--float-inputs float keeps them float)";
}

PlannedGraph plan_graph(const ir::Graph& model, const PlanRequest& request) {
  const bool quantize = request.quantize_float_inputs && !request.inputs_outside_arena;
  passes::QuantizedInputs quantized;
  if (quantize) quantized = passes::quantize_float_inputs(model);
  const ir::Graph& held = quantize ? quantized.graph : model;
  passes::FoldedPads folded;
  if (request.fold_pads) folded = passes::fold_pads(held);
  const ir::Graph& graph = request.fold_pads ? folded.graph : held;
  const std::optional<target::Cpu> cpu = target::find_cpu(request.cpu);
  if (!cpu) {
    throw InputError("unknown target '" + request.cpu + "'; known: " + target::cpu_names());
  }
  if (request.alignment == 0 || (request.alignment & (request.alignment - 1)) != 0 ||
      request.alignment > 4096) {
    throw InputError("alignment " + std::to_string(request.alignment) +
                     " is not a power of two up to 4096");
  }
  planner::PlanOptions options;
  options.time_limit_ms = request.time_limit_ms;
  options.node_limit = request.node_limit;
  auto plan_once = [&](ir::Graph ordered, const std::vector<bool>& in_place) {
    PlannedGraph planned;
    planned.graph = std::move(ordered);
    planned.cpu = *cpu;
    planned.memory = passes::build_memory_problem(planned.graph, cpu->extension, request.alignment,
                                                  request.overlap, {}, in_place,
                                                  request.inputs_outside_arena);
    planned.bound = planner::lower_bound(planned.memory.problem);
    planned.plans = planner::plan_with_details(planned.memory.problem, request.algorithm, options);
    for (const planner::Plan& plan : planned.plans) {
      if (auto error = planner::verify(planned.memory.problem, plan)) {
        throw std::logic_error("plan by " + plan.algorithm + " failed verification: " + *error);
      }
    }
    return planned;
  };
  // An order planned as well as it goes: where kernels may run in place, planned with them too,
  // the smaller arena kept (the first on a tie: the raster kernels are the faster).
  // The budget weighs costs against the inference run whole (the same for every order).
  const std::optional<double> whole = estimated_instructions(graph, cpu->extension);
  auto plan_in = [&](ir::Graph ordered) {
    PlannedGraph planned = plan_once(std::move(ordered), {});
    planned.estimated_instructions = whole;
    if (!request.overlap || !request.in_place || cpu->extension == kernels::Extension::kMve) {
      return planned;
    }
    for (const std::vector<bool>& in_place : in_place_candidates(planned, request.alignment)) {
      PlannedGraph with_in_place = plan_once(planned.graph, in_place);
      if (with_in_place.plan().arena_bytes >= planned.plan().arena_bytes) continue;
      const std::optional<double> extra = in_place_extra(planned.graph, in_place, cpu->extension);
      if (!affordable(request, whole, extra)) {
        note_refused(planned, with_in_place.plan().arena_bytes, extra);
        continue;
      }
      const uint64_t refused = planned.refused_arena;
      const std::optional<double> refused_extra = planned.refused_extra;
      planned = std::move(with_in_place);
      planned.estimated_instructions = whole;
      planned.extra_instructions = extra;
      planned.refused_arena = refused;
      planned.refused_extra = refused_extra;
    }
    return planned;
  };

  planner::OrderSummary order;
  order.order = passes::model_order(graph);
  // A chain has one order: nothing to search, nothing spent.
  const bool search = request.order == PlanRequest::Order::kSearch && !passes::has_one_order(graph);
  if (!search) {
    using Kept = planner::OrderSummary::Kept;
    order.kept = request.order == PlanRequest::Order::kModel ? Kept::kAsked : Kept::kOnlyOrder;
  }
  PlannedGraph planned = plan_in(graph);
  order.model_arena = order.arena = planned.plan().arena_bytes;
  if (search) {
    const passes::OrderRanking ranking =
        passes::rank_orders(graph, cpu->extension, request.alignment, request.overlap);
    order.kept = planner::OrderSummary::Kept::kSearched;
    order.orders = ranking.considered;
    order.exhaustive = ranking.exhaustive;
    if (!ranking.ranked.empty() && ranking.ranked.front().order != order.order) {
      const std::vector<int32_t>& best = ranking.ranked.front().order;
      PlannedGraph other = plan_in(passes::reordered(graph, best));
      if (other.plan().arena_bytes < order.model_arena) {
        planned = std::move(other);
        order.order = best;
        order.arena = planned.plan().arena_bytes;
      }
    }
  }
  // Steps name the model's operators, folded PADs and left-out QUANTIZEs counted.
  for (int32_t& k : order.order) {
    if (request.fold_pads) k = folded.model_index[static_cast<size_t>(k)];
    if (quantize) k = quantized.model_index[static_cast<size_t>(k)];
  }
  planned.order = std::move(order);
  planned.folded_pads = folded.folded;
  planned.quantized_inputs = quantized.quantized;
  for (size_t i = 0; i < model.inputs.size() && quantized.quantized > 0; ++i) {
    if (i < graph.float_inputs.size() && graph.float_inputs[i]) {
      planned.float_input_bytes += static_cast<uint64_t>(
          model.tensors[static_cast<size_t>(model.inputs[i])].num_bytes());
    }
  }
  if (request.stream) stream_stages(planned, request, options);
  // The first-fit row (not the plan used) is TensorFlow Lite Micro's rule on its own problem:
  // the model's, PADs and float inputs as written.
  for (size_t k = 1; k < planned.plans.size(); ++k) {
    planner::Plan& row = planned.plans[k];
    if (row.algorithm != planner::to_string(planner::Algorithm::kFirstFit)) continue;
    auto problem = std::make_shared<const planner::Problem>(tflm_problem(model, request));
    const double milliseconds = row.milliseconds;
    row = planner::plan(*problem, planner::Algorithm::kFirstFit, options);
    row.milliseconds += milliseconds;
    row.optimal = row.arena_bytes <= planned.bound.bytes;  // against Mote's bound
    if (*problem != planned.memory.problem) row.problem = std::move(problem);
  }
  return planned;
}

planner::Problem tflm_problem(const ir::Graph& graph, const PlanRequest& request) {
  const std::optional<target::Cpu> cpu = target::find_cpu(request.cpu);
  if (!cpu) throw InputError("unknown target '" + request.cpu + "'; known: " + target::cpu_names());
  return passes::build_memory_problem(graph, cpu->extension, request.alignment,
                                      /*with_overlaps=*/false)
      .problem;
}

Compiled compile(const ir::Graph& graph, const CompileOptions& options) {
  Compiled compiled;
  compiled.planned = plan_graph(graph, options.plan);
  const PlannedGraph& planned = compiled.planned;
  passes::LowerOptions lower_options;
  lower_options.keep_names = options.keep_names;
  lower_options.extension = planned.cpu.extension;
  // The planned graph: the program runs the operators in the order the plan was made for.
  passes::LoweredProgram lowered = passes::lower(planned.graph, planned.memory, lower_options);
  schema::ProgramT program = emit::assemble_program(
      std::move(lowered.parts), planned.cpu, planned.memory.problem, planned.plan(),
      planned.bound);
  // Stages: their rings (the plan sized them) and their operator ranges.
  for (const passes::RowStage& stage : planned.stages) {
    for (const passes::StageRing& ring : stage.rings) {
      const int32_t t = lowered.tensor_index[static_cast<size_t>(ring.tensor)];
      schema::TensorT& tensor = *program.tensors[static_cast<size_t>(t)];
      tensor.ring_rows = static_cast<uint32_t>(ring.rows);
      tensor.size = static_cast<uint32_t>(ring.bytes());
    }
    program.stages.emplace_back(static_cast<uint32_t>(stage.first),
                                static_cast<uint32_t>(stage.last));
    // Its schedule written out, so that the runtime reads its calls instead of computing them.
    auto calls = std::make_unique<schema::StageCallsT>();
    for (const passes::StageCall& call : stage.schedule) {
      program::stage_call_entries(call.op - stage.first, call.begin, call.end,
                                            [&](uint16_t entry) { calls->calls.push_back(entry); });
    }
    program.stage_calls.push_back(std::move(calls));
    // One scratch region for the stage's operators (passes::shared_scratch_op).
    const int32_t shared = passes::shared_scratch_op(planned.memory, stage);
    if (shared < 0) continue;
    const schema::Region region = *program.operators[static_cast<size_t>(shared)]->scratch;
    for (int32_t k = stage.first; k <= stage.last; ++k) {
      if (stage.accumulates && k == stage.last) continue;  // its sums, apart
      if (program.operators[static_cast<size_t>(k)]->scratch) {
        program.operators[static_cast<size_t>(k)]->scratch = std::make_unique<schema::Region>(region);
      }
    }
  }
  if (options.checksum) {
    program.constants_crc32 = runtime::crc32(program.constants.data(), program.constants.size());
  }
  compiled.program = emit::emit_program(std::move(program));
  compiled.tensor_index = std::move(lowered.tensor_index);
  return compiled;
}

}  // namespace mote::pipeline
