// `mote compile`: a .tflite model becomes a .mote program for one Cortex-M CPU.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/pipeline/compile.h"
#include "compiler/planner/report.h"
#include "compiler/target/target.h"
#include "compiler/tflite/reader.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/progress.h"

namespace mote::tools {
namespace {

struct CompileSettings {
  std::string model;
  std::string output;
  std::string json_path;    // --json FILE ("-": stdout)
  std::string report_path;  // --report FILE, the old spelling of --json FILE
  std::string svg_path;
  std::string algorithm = "auto";
  pipeline::CompileOptions options;
};

std::string default_output(const std::string& model) {
  return std::filesystem::path(model).replace_extension(".mote").string();
}

// "portable 12, mve 3": how many operators each kernel variant runs, in order of first use
// (the JSON report lists them per operator).
std::string variant_counts(const std::vector<planner::StepKernel>& kernels) {
  std::vector<std::pair<std::string, int>> counts;
  for (const planner::StepKernel& k : kernels) {
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& c) { return c.first == k.variant; });
    if (it == counts.end()) {
      counts.emplace_back(k.variant, 1);
    } else {
      ++it->second;
    }
  }
  std::string out;
  for (const auto& [variant, n] : counts) {
    out += (out.empty() ? "" : ", ") + variant + " " + std::to_string(n);
  }
  return out.empty() ? "none" : out;
}

void compile_model(const CompileSettings& s) {
  ir::Graph graph;
  pipeline::Compiled compiled;
  try {
    graph = tflite::read_model_file(s.model);
    announce_planning(s.model, s.options.plan.cpu, s.options.plan.algorithm,
                      s.options.plan.time_limit_ms);
    compiled = pipeline::compile(graph, s.options);
  } catch (const InputError& e) {
    throw InputError(s.model + ": " + e.what());
  }
  const std::string output = s.output.empty() ? default_output(s.model) : s.output;

  const pipeline::PlannedGraph& planned = compiled.planned;
  planner::ReportContext context{s.model, planned.cpu.name, planned.cpu.extension,
                                 planned.memory.kernels};
  // Every output is staged first and committed together: a failure leaves none of them.
  emit::OutputFiles files;
  const std::string& json_path = !s.json_path.empty() ? s.json_path : s.report_path;
  if (!json_path.empty()) {
    nlohmann::json report = planner::json_report(planned.memory.problem, planned.bound,
                                                 planned.plans, context);
    report["program"] = {{"file", output}, {"bytes", compiled.program.size()}};
    files.add(json_path, report.dump(2) + "\n");
  }
  if (!s.svg_path.empty()) {
    files.add(s.svg_path, planner::svg_report(planned.memory.problem, planned.bound,
                                              planned.plan(), context));
  }
  files.add(output, compiled.program);

  const planner::Plan& plan = planned.plan();
  const planner::PlanFigures figures =
      planner::plan_figures(planned.memory.problem, planned.bound, plan);
  // The summary goes to stderr when stdout carries the program or the JSON.
  FILE* summary = output == "-" || json_path == "-" ? stderr : stdout;
  std::fprintf(summary, "mote: %s -> %s for %s (%s), %zu operators\n", s.model.c_str(),
               output.c_str(), planned.cpu.name.c_str(),
               std::string(target::extension_name(planned.cpu.extension)).c_str(),
               graph.operators.size());
  std::fprintf(summary, "  program: %zu bytes\n", compiled.program.size());
  std::fprintf(summary,
               "  arena:   %llu bytes (activations %llu, scratch %llu), lower bound %llu, %s\n",
               static_cast<unsigned long long>(plan.arena_bytes),
               static_cast<unsigned long long>(figures.activation_bytes),
               static_cast<unsigned long long>(figures.scratch_bytes),
               static_cast<unsigned long long>(planned.bound.bytes),
               plan.optimal ? "optimal" : "not proven optimal");
  std::fprintf(summary, "  plan:    %s%s\n", plan.algorithm.c_str(),
               plan.chosen.empty() || plan.chosen == plan.algorithm
                   ? ""
                   : (" (" + plan.chosen + " won)").c_str());
  std::fprintf(summary, "  kernels: %s\n", variant_counts(planned.memory.kernels).c_str());
  emit::flush_stdout();
  files.commit();
}

}  // namespace

void add_compile_command(CLI::App& app) {
  auto s = std::make_shared<CompileSettings>();
  auto* cmd = app.add_subcommand(
      "compile",
      "Compile an int8 .tflite model into a .mote program for one Cortex-M CPU: import, lower,\n"
      "plan one arena (activations and every kernel's scratch), verify the plan, emit.\n"
      "Example: mote compile kws.tflite --target cortex-m4 -o kws.mote --json kws-plan.json");
  cmd->add_option("model", s->model, "The .tflite model")->required();
  cmd->add_option("-o,--output", s->output,
                  "The program to write (default: MODEL with .mote; - for stdout)");
  add_target_option(cmd, s->options.plan.cpu,
                    "The CPU; scratch sizes, and so the plan, depend on its extension");
  add_algorithm_option(cmd, s->algorithm);
  auto* json = add_json_option(cmd, s->json_path, "Write the plan report as JSON");
  cmd->add_option("--report", s->report_path,
                  "Old spelling of --json FILE, kept for one release")
      ->excludes(json);
  cmd->add_option("--svg", s->svg_path, "Draw the plan as SVG into FILE");
  add_align_option(cmd, s->options.plan.alignment, "Alignment of every buffer, in bytes");
  cmd->add_flag("--no-overlap{false}", s->options.plan.overlap,
                "Keep every operator's output apart from its inputs (no overlap rules)");
  add_time_limit_option(cmd, s->options.plan.time_limit_ms, "Time budget of the exact search");
  cmd->add_flag("--keep-names", s->options.keep_names,
                "Keep tensor names in the program (costs flash; helps debugging)");
  cmd->callback([s] {
    s->options.plan.algorithm = *planner::algorithm_from_string(s->algorithm);
    compile_model(*s);
  });
}

}  // namespace mote::tools
