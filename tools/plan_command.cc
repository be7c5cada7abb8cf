// `mote plan`: plan one arena and report it. The command parses options and writes files; the
// planning and every report live in the planner library (compiler/planner).
//
// The problem comes from a model (MODEL.tflite and --target CPU, through the compiler's
// pipeline, which also verifies every plan) or from a CSV file (--problem).
#include <cstdio>
#include <fstream>
#include <sstream>

#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/pipeline/compile.h"
#include "compiler/planner/csv.h"
#include "compiler/planner/lower_bound.h"
#include "compiler/planner/planner.h"
#include "compiler/planner/report.h"
#include "compiler/planner/verify.h"
#include "compiler/tflite/reader.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/progress.h"

namespace mote::tools {

namespace {

// What to plan with and where the reports go.
struct PlanOutputs {
  planner::Algorithm algorithm = planner::Algorithm::kAuto;
  planner::PlanOptions options;
  std::string json_path;  // "-" for stdout (then the text report is not printed)
  std::string svg_path;
  std::string csv_path;   // the problem with the chosen plan's offsets
};

void Report(const planner::Problem& problem, const planner::LowerBound& bound,
            const std::vector<planner::Plan>& plans, const planner::ReportContext& context,
            const PlanOutputs& outputs) {
  // Every file is staged first and committed together: a failure leaves none of them.
  emit::OutputFiles files;
  if (!outputs.json_path.empty()) {
    files.add(outputs.json_path,
              planner::json_report(problem, bound, plans, context).dump(2) + "\n");
  }
  if (!outputs.svg_path.empty()) {
    files.add(outputs.svg_path, planner::svg_report(problem, bound, plans.front(), context));
  }
  if (!outputs.csv_path.empty()) {
    std::ostringstream csv;
    planner::write_csv(csv, problem, &plans.front());
    files.add(outputs.csv_path, csv.str());
  }
  if (outputs.json_path != "-") {
    const std::string text = planner::text_report(problem, bound, plans, context);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  emit::flush_stdout();
  files.commit();
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "plan",
      "Plan one arena for a model's activations and kernel scratch buffers (or for buffers from\n"
      "a CSV file) and report every algorithm's result against the lower bound.\n"
      "Example: mote plan kws.tflite --target cortex-m4 --svg kws-plan.svg\n"
      "         mote plan --problem buffers.csv --json -");
  struct Settings {
    std::string model_path;
    import::ImportOptions import;
    std::string problem_path;
    std::string target = "cortex-m55";
    std::string algorithm = "auto";
    uint32_t align = planner::kDefaultAlignment;
    double time_limit_ms = 1000;
    uint64_t node_limit = 0;
    bool overlap = true;   // --no-overlap clears it
    bool in_place = true;  // --no-in-place clears it
    std::string order = "search";
    bool inputs_outside_arena = false;
    bool quantize_float_inputs = true;
    std::string optimize = kDefaultOptimize;
    PlanOutputs outputs;
  };
  auto settings = std::make_shared<Settings>();
  auto* model = cmd->add_option("model", settings->model_path, "The model to plan: .tflite, or quantized .onnx");
  add_import_options(cmd, settings->import);
  auto* problem = cmd->add_option(
      "--problem", settings->problem_path,
      "Plan buffers from CSV instead of a model: id,lower,upper,size[,alignment][,kind][,offset] "
      "with the half-open step range [lower, upper)");
  model->excludes(problem);
  problem->excludes(model);
  const CLI::Option* target =
      add_target_option(cmd, settings->target, "The CPU whose kernels' scratch sizes to plan for");
  add_algorithm_option(cmd, settings->algorithm);
  add_json_option(cmd, settings->outputs.json_path,
                  "Write a JSON report (then the text report is not printed when it is stdout)");
  cmd->add_option("--svg", settings->outputs.svg_path, "Draw the plan as SVG into FILE");
  cmd->add_option("--write-csv", settings->outputs.csv_path,
                  "Write the problem with the plan's offsets as CSV to FILE");
  add_align_option(cmd, settings->align,
                   "Alignment in bytes of every buffer (for CSV: of rows that give none)");
  add_time_limit_option(cmd, settings->time_limit_ms,
                        "Time budget of the exact search (of all of auto)");
  cmd->add_option("--node-limit", settings->node_limit,
                  "Also stop the exact search after N nodes (0: no limit); a binding node limit "
                  "makes results identical on every machine");
  add_no_overlap_flag(cmd, settings->overlap);
  add_no_in_place_flag(cmd, settings->in_place);
  add_order_option(cmd, settings->order);
  add_inputs_outside_arena_flag(cmd, settings->inputs_outside_arena)->excludes(problem);
  add_float_inputs_option(cmd, settings->quantize_float_inputs)->excludes(problem);
  add_optimize_options(cmd, settings->optimize)->excludes(problem);
  cmd->get_option("--stream")->excludes(problem);
  cmd->get_option("--no-stream")->excludes(problem);
  cmd->callback([settings, target] {
    const uint32_t align = settings->align;  // checked by add_align_option
    PlanOutputs outputs = settings->outputs;
    outputs.algorithm = *planner::algorithm_from_string(settings->algorithm);
    outputs.options.time_limit_ms = settings->time_limit_ms;
    outputs.options.node_limit = settings->node_limit;

    if (!settings->model_path.empty()) {
      pipeline::PlanRequest request;
      request.cpu = settings->target;
      request.algorithm = outputs.algorithm;
      request.alignment = align;
      request.time_limit_ms = settings->time_limit_ms;
      request.node_limit = settings->node_limit;
      request.overlap = settings->overlap;
      request.in_place = settings->in_place;
      request.order = *pipeline::order_from_string(settings->order);  // checked by the option
      request.inputs_outside_arena = settings->inputs_outside_arena;
      request.quantize_float_inputs = settings->quantize_float_inputs;
      apply_optimize(settings->optimize, request);
      pipeline::PlannedGraph planned;
      ir::Graph graph;
      try {
        graph = read_model_for_command(settings->model_path, settings->import);
        announce_planning(settings->model_path, request.cpu, request.algorithm,
                          request.time_limit_ms);
        planned = pipeline::plan_graph(graph, request);
      } catch (const InputError& e) {
        throw InputError(settings->model_path + ": " + e.what());
      }
      const planner::ReportContext context{settings->model_path, planned.cpu.name,
                                           planned.cpu.extension, planned.memory.kernels,
                                           planned.order, planned.memory.outside_arena};
      if (outputs.json_path != "-" && target->count() == 0) {
        std::printf("target: %s%s\n", planned.cpu.name.c_str(), default_target_note(target).c_str());
      }
      Report(planned.memory.problem, planned.bound, planned.plans, context, outputs);
      if (planned.folded_pads > 0 && outputs.json_path != "-") {
        std::printf("folded: %d %s as the padding of the convolution or pool reading it (no "
                    "padded copy in the arena)\n",
                    planned.folded_pads, planned.folded_pads == 1 ? "PAD runs" : "PADs run");
        emit::flush_stdout();
      }
      if (planned.quantized_inputs > 0 && outputs.json_path != "-") {
        std::printf("%s\n", pipeline::quantized_inputs_sentence(planned).c_str());
        emit::flush_stdout();
      }
      if (!planned.memory.problem.overlaps.empty() && outputs.json_path != "-") {
        // The same graph with every output apart from its inputs (and no kernel run in place),
        // for comparison.
        pipeline::PlanRequest apart_request = request;
        apart_request.overlap = false;
        const pipeline::PlannedGraph apart = pipeline::plan_graph(graph, apart_request);
        // Outputs placed above a dying input they share bytes with: their operators run backward.
        // Outputs on their input: the operator's kernel runs in place.
        size_t backward = 0, in_place = 0;
        const std::vector<uint64_t>& at = planned.plan().offsets;
        for (const planner::Overlap& o : planned.memory.problem.overlaps) {
          const auto out = static_cast<int64_t>(at[o.output]), in = static_cast<int64_t>(at[o.input]);
          const bool shared =
              out < in + static_cast<int64_t>(planned.memory.problem.buffers[o.input].size) &&
              in < out + static_cast<int64_t>(planned.memory.problem.buffers[o.output].size);
          if (o.back_lead && shared && out + o.lead > in) ++backward;
          if (o.exact && shared) ++in_place;
        }
        std::printf("overlap: %zu outputs may overlap a dying input (%zu run backward, %zu in "
                    "place); arena %llu bytes with overlap, %llu without (bound %llu)\n",
                    planned.memory.problem.overlaps.size(), backward, in_place,
                    static_cast<unsigned long long>(planned.plan().arena_bytes),
                    static_cast<unsigned long long>(apart.plan().arena_bytes),
                    static_cast<unsigned long long>(apart.bound.bytes));
        emit::flush_stdout();
      }
      if (outputs.json_path != "-") {
        std::printf("optimize: %s\n", settings->optimize.c_str());
        if (request.stream) std::printf("%s\n", pipeline::stream_sentence(planned).c_str());
        const std::string cost = pipeline::cost_sentence(planned, request);
        if (!cost.empty()) std::printf("%s\n", cost.c_str());
        emit::flush_stdout();
      }
      return;
    }
    if (settings->problem_path.empty()) {
      throw InputError("plan: give a MODEL.tflite or --problem FILE.csv (see mote plan --help)");
    }
    std::ifstream in(settings->problem_path, std::ios::binary);
    if (!in) throw InputError("cannot read '" + settings->problem_path + "'");
    const planner::Problem problem = planner::read_csv(in, settings->problem_path, align);
    planner::ReportContext context;
    context.source = settings->problem_path;
    Report(problem, planner::lower_bound(problem),
           planner::plan_with_details(problem, outputs.algorithm, outputs.options), context,
           outputs);
  });
}

}  // namespace mote::tools
