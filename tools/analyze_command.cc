// `mote analyze`: the model compiled for one CPU, one row per operator (MACs, flash, arena live
// and in use, scratch, kernel variant) with totals. The rows come from compiler/pipeline/analyze.
#include <cstdio>
#include <memory>

#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/pipeline/analyze.h"
#include "compiler/pipeline/compile.h"
#include "compiler/tflite/reader.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/progress.h"

namespace mote::tools {
namespace {

struct AnalyzeSettings {
  std::string model;
  std::string json_path;  // "-": stdout, and then no text
  std::string csv_path;   // "-": stdout, and then no text
  std::string algorithm = "auto";
  pipeline::CompileOptions options;
};

void analyze_model(const AnalyzeSettings& s) {
  pipeline::Analysis analysis;
  try {
    const ir::Graph graph = tflite::read_model_file(s.model);
    announce_planning(s.model, s.options.plan.cpu, s.options.plan.algorithm,
                      s.options.plan.time_limit_ms);
    analysis = pipeline::analyze(s.model, graph, pipeline::compile(graph, s.options));
  } catch (const InputError& e) {
    throw InputError(s.model + ": " + e.what());
  }
  emit::OutputFiles files;
  if (!s.json_path.empty()) files.add(s.json_path, pipeline::analysis_json(analysis).dump(2) + "\n");
  if (!s.csv_path.empty()) files.add(s.csv_path, pipeline::analysis_csv(analysis));
  if (s.json_path != "-" && s.csv_path != "-") {
    const std::string text = pipeline::analysis_text(analysis);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  emit::flush_stdout();
  files.commit();
}

}  // namespace

void add_analyze_command(CLI::App& app) {
  auto s = std::make_shared<AnalyzeSettings>();
  auto* cmd = app.add_subcommand(
      "analyze",
      "Compile a model for one CPU and report every operator: step, type, output shape, MACs,\n"
      "flash (the constants it reads), live (arena bytes of the buffers live at its step, its\n"
      "scratch too), arena (the arena in use then), its scratch and the kernel variant that\n"
      "runs it; totals: MACs and constants as mote inspect counts them, the lower bound and the\n"
      "plan's arena (the largest arena figure of any step).\n"
      "Example: mote analyze kws.tflite --target cortex-m4 --csv kws-layers.csv");
  cmd->add_option("model", s->model, "The .tflite model")->required();
  add_target_option(cmd, s->options.plan.cpu,
                    "The CPU; scratch sizes and kernel variants depend on its extension");
  add_algorithm_option(cmd, s->algorithm);
  add_json_option(cmd, s->json_path, "Write the rows and totals as JSON");
  cmd->add_option("--csv", s->csv_path,
                  "Write the rows and a total line as CSV to FILE, or - for stdout");
  add_time_limit_option(cmd, s->options.plan.time_limit_ms, "Time budget of the exact search");
  cmd->callback([s] {
    if (s->json_path == "-" && s->csv_path == "-") {
      throw CLI::ValidationError("--json, --csv", "only one of them can go to standard output");
    }
    s->options.plan.algorithm = *planner::algorithm_from_string(s->algorithm);
    analyze_model(*s);
  });
}

}  // namespace mote::tools
