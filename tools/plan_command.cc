// `mote plan`: plan one arena and report it. The command parses options and writes files; the
// planning and every report live in the planner library (compiler/planner).
//
// Today the problem comes from a CSV file (--problem). A model (MODEL.tflite positional plus
// --target CPU) slots in by building the Problem from the IR and filling ReportContext's target
// and extension (planner::extension_for_cpu), then calling PlanAndReport unchanged.
#include <fstream>
#include <iostream>

#include "compiler/ir/error.h"
#include "compiler/planner/csv.h"
#include "compiler/planner/lower_bound.h"
#include "compiler/planner/planner.h"
#include "compiler/planner/report.h"
#include "tools/commands.h"

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

std::ofstream open_output(const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError("cannot write '" + path + "'");
  return out;
}

void PlanAndReport(const planner::Problem& problem, const planner::ReportContext& context,
                   const PlanOutputs& outputs) {
  const planner::LowerBound bound = planner::lower_bound(problem);
  const std::vector<planner::Plan> plans =
      planner::plan_with_details(problem, outputs.algorithm, outputs.options);
  if (outputs.json_path != "-") {
    std::cout << planner::text_report(problem, bound, plans, context);
  }
  if (!outputs.json_path.empty()) {
    const std::string json = planner::json_report(problem, bound, plans, context).dump(2) + "\n";
    if (outputs.json_path == "-") {
      std::cout << json;
    } else {
      open_output(outputs.json_path) << json;
    }
  }
  if (!outputs.svg_path.empty()) {
    open_output(outputs.svg_path) << planner::svg_report(problem, bound, plans.front(), context);
  }
  if (!outputs.csv_path.empty()) {
    std::ofstream out = open_output(outputs.csv_path);
    planner::write_csv(out, problem, &plans.front());
  }
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "plan",
      "Plan one arena for a set of buffers and report every algorithm's result against the lower "
      "bound.\nExample: mote plan --problem buffers.csv --svg plan.svg");
  struct Settings {
    std::string problem_path;
    std::string algorithm = "auto";
    uint32_t align = planner::kDefaultAlignment;
    double time_limit_ms = 1000;
    uint64_t node_limit = 0;
    PlanOutputs outputs;
  };
  auto settings = std::make_shared<Settings>();
  cmd->add_option("--problem", settings->problem_path,
                  "Buffers as CSV: id,lower,upper,size[,alignment][,kind][,offset] with the "
                  "half-open step range [lower, upper)")
      ->required();
  std::vector<std::string> names;
  for (planner::Algorithm a : planner::kAllAlgorithms) names.emplace_back(planner::to_string(a));
  cmd->add_option("--algorithm", settings->algorithm,
                  "naive, first-fit (TensorFlow Lite Micro's rule), best-fit, exact (branch and "
                  "bound), or auto: the greedy ones, then exact seeded with the best")
      ->check(CLI::IsMember(names))
      ->capture_default_str();
  cmd->add_option("--json", settings->outputs.json_path, "Write a JSON report to FILE, or - for stdout");
  cmd->add_option("--svg", settings->outputs.svg_path, "Draw the plan as SVG into FILE");
  cmd->add_option("--write-csv", settings->outputs.csv_path,
                  "Write the problem with the plan's offsets as CSV to FILE");
  cmd->add_option("--align", settings->align,
                  "Alignment in bytes of buffers whose CSV row gives none (a power of two)")
      ->capture_default_str();
  cmd->add_option("--time-limit-ms", settings->time_limit_ms,
                  "Time budget of the exact search (of all of auto)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--node-limit", settings->node_limit,
                  "Also stop the exact search after N nodes (0: no limit); a binding node limit "
                  "makes results identical on every machine");
  cmd->callback([settings] {
    const uint32_t align = settings->align;
    if (align == 0 || (align & (align - 1)) != 0) {
      throw InputError("--align " + std::to_string(align) + " is not a power of two");
    }
    std::ifstream in(settings->problem_path, std::ios::binary);
    if (!in) throw InputError("cannot read '" + settings->problem_path + "'");
    const planner::Problem problem = planner::read_csv(in, settings->problem_path, align);
    PlanOutputs outputs = settings->outputs;
    outputs.algorithm = *planner::algorithm_from_string(settings->algorithm);
    outputs.options.time_limit_ms = settings->time_limit_ms;
    outputs.options.node_limit = settings->node_limit;
    planner::ReportContext context;
    context.source = settings->problem_path;
    PlanAndReport(problem, context, outputs);
  });
}

}  // namespace mote::tools
