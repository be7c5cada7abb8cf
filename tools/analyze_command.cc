// `mote analyze`: the model compiled for one CPU, one row per operator (MACs, flash, arena live
// and in use, scratch, kernel variant) with totals. The rows come from compiler/pipeline/analyze.
#include <cstdio>
#include <memory>

#include "compiler/emit/emit.h"
#include "compiler/emit/program_file.h"
#include "compiler/ir/error.h"
#include "compiler/pipeline/analyze.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "compiler/tflite/reader.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/progress.h"
#include "tools/temp_dir.h"
#include "targets/cortex-m/host/qemu_runner.h"

namespace mote::tools {
namespace {

struct AnalyzeSettings {
  std::string model;
  std::string json_path;  // "-": stdout, and then no text
  std::string csv_path;   // "-": stdout, and then no text
  bool measure = false;      // --measure: instructions per operator under QEMU
  RunnerSettings runner;
  PlanningSettings planning;
  pipeline::CompileOptions options;  // planning.resolved(), once parsed
  import::ImportOptions import;
};

namespace fs = std::filesystem;

// Runs the program once (mote run's default input) in the CPU's generic runner under QEMU and
// adds each operator's instructions.
void measure(const AnalyzeSettings& s, const std::vector<uint8_t>& program,
             pipeline::Analysis& analysis) {
  const std::optional<std::string> board = cortex_m::qemu_board(analysis.cpu);
  if (!board) throw InputError("--measure: no QEMU board runs " + analysis.cpu);
  const std::optional<fs::path> qemu = cortex_m::find_qemu();
  if (!qemu) throw InputError("--measure: qemu-system-arm is not installed");
  const fs::path image = s.runner.image(analysis.cpu);
  TempDir dir;
  emit::write_file_atomically(dir.path / "program.mote", program);
  std::vector<uint8_t> input;
  for (const auto& in : pipeline::HostProgram(program).default_inputs()) {
    input.insert(input.end(), in.begin(), in.end());
  }
  emit::write_file_atomically(dir.path / "input.bin", input);
  const std::optional<cortex_m::QemuRun> run =
      cortex_m::run_qemu(*qemu, *board, image, s.runner.timeout_seconds, dir.path);
  if (!run || run->exit_status != 0) {
    const cortex_m::RunnerOutput parsed = cortex_m::parse_runner_output(run ? run->output : "");
    throw InputError("--measure: " + image.filename().string() + " on " + *board + " failed" +
                     (parsed.error_line.empty() ? "" : ": " + parsed.error_line));
  }
  pipeline::add_instructions(analysis, cortex_m::parse_operator_instructions(run->output), *board);
}

// A program (.mote) is analyzed as it is, on the CPU it names; a model is compiled first.
struct Analyzed {
  pipeline::Analysis analysis;
  std::vector<uint8_t> program;
};

Analyzed analyze_program_file(const AnalyzeSettings& s) {
  const emit::ProgramFile file = emit::read_program_file(s.model);
  check_program_target(s.model, *file.program, s.planning);
  return {pipeline::analyze_program(s.model, *file.program, file.bytes.size()),
          std::vector<uint8_t>(file.bytes.data(), file.bytes.data() + file.bytes.size())};
}

void analyze_model(const AnalyzeSettings& s) {
  Analyzed analyzed;
  if (emit::is_program_file(s.model)) {
    analyzed = analyze_program_file(s);
  } else {
    auto [graph, compiled] = compile_model_file(s.model, s.options, s.import);
    analyzed.analysis = pipeline::analyze(s.model, compiled);
    analyzed.analysis.target_note = default_target_note(s.planning.target_option);
    analyzed.analysis.optimize = optimize_summary(s.planning.optimize, compiled.planned, s.options.plan);
    analyzed.program = std::move(compiled.program);
  }
  pipeline::Analysis& analysis = analyzed.analysis;
  try {
    if (s.measure) measure(s, analyzed.program, analysis);
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
      "Compile a model for one CPU (or read a .mote program) and report every operator: step,\n"
      "type, output shape, MACs, flash (the constants it reads), live (bytes of the buffers live at its step, its scratch\n"
      "too; outputs that overlap a dying input share bytes, so this may exceed the arena), arena\n"
      "(the arena in use then), its scratch and the kernel variant that\n"
      "runs it; totals: MACs and constants as mote inspect counts them, the lower bound and the\n"
      "plan's arena (the largest arena figure of any step). --measure adds instructions per\n"
      "operator, measured under QEMU.\n"
      "A .mote program is analyzed as compiled, on the CPU it names (its rows keep no model\n"
      "index and no folded PAD count).\n"
      "Example: mote analyze kws.tflite --target cortex-m4 --csv kws-layers.csv\n"
      "         mote analyze kws.mote --measure");
  cmd->add_option("model", s->model, "The model: .tflite, quantized .onnx, or a .mote program")
      ->required();
  add_import_options(cmd, s->import);
  add_planning_options(cmd, s->planning, "The CPU whose kernels and scratch sizes to analyze");
  add_json_option(cmd, s->json_path, "Write the rows and totals as JSON");
  cmd->add_option("--csv", s->csv_path,
                  "Write the rows and a total line as CSV to FILE, or - for stdout");
  cmd->add_flag("--measure", s->measure,
                "Also run the program once under QEMU in the CPU's generic runner\n"
                "(firmware-<cpu>/validate_runner.elf) and add each operator's instructions");
  add_runner_options(cmd, s->runner, "--measure: ");
  cmd->callback([s] {
    if (s->json_path == "-" && s->csv_path == "-") {
      throw CLI::ValidationError("--json, --csv", "only one of them can go to standard output");
    }
    s->options = s->planning.resolved();
    analyze_model(*s);
  });
}

}  // namespace mote::tools
