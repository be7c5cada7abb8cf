// `mote demo`: the whole tool chain on an embedded example, needing no file. Builds a
// keyword-spotting-shaped model with the builder, writes it as demo-kws.tflite (so the README's
// walk-through can go on with it), compiles it for Cortex-M55 and Cortex-M4, runs each program
// on the host and, when QEMU and the firmware runner images are there, on the emulated CPU, and
// reports the memory figures next to the lower bound and TensorFlow Lite Micro's first-fit rule.
// Every number printed comes from the pipeline; nothing is hard-coded.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"
#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/ir/stats.h"
#include "mote/kernels/scratch.h"
#include "compiler/ops/op_def.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "compiler/planner/report.h"
#include "compiler/target/target.h"
#include "compiler/tflite/reader.h"
#include "mote/runtime/executor.h"
#include "targets/cortex-m/host/qemu_runner.h"
#include "tools/commands.h"
#include "tools/options.h"

namespace mote::tools {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kModelFile = "demo-kws.tflite";
constexpr const char* kSvgFile = "demo-plan.svg";
constexpr const char* kReportFile = "demo-report.json";
// The CPUs the demo compiles for: one with Helium (MVE) kernels, one with DSP kernels.
constexpr const char* kDemoCpus[] = {"cortex-m55", "cortex-m4"};
// The builder's model the firmware runner images embed (targets/cortex-m/cross builds
// run_kws_dscnn_like.elf), the one the demo compiles.
constexpr const char* kRunnerModel = "kws_dscnn_like";
// Firmware runs stop after this long (a healthy run takes well under a second).
constexpr int kQemuTimeoutSeconds = 20;

struct DemoOptions {
  std::string output_dir = ".";
  bool no_firmware = false;
  std::string firmware_dir;  // default: beside the mote executable
  double time_limit_ms = 1000;
  std::string optimize = kDefaultOptimize;
};

// 1234567 -> "1,234,567".
std::string commas(uint64_t value) {
  std::string digits = std::to_string(value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

std::string percent(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", value);
  return text;
}

void progress(const std::string& what) {
  // Progress goes to stderr, so stdout holds the report alone.
  std::fprintf(stderr, "mote demo: %s\n", what.c_str());
  std::fflush(stderr);
}

// ---- firmware under QEMU ----------------------------------------------------------------------

struct FirmwareRun {
  std::string state = "skipped";  // "skipped", "ok" or "failed"
  std::string reason;             // why it was skipped or failed
  std::string image;
  std::string board;
  int exit_status = -1;
  cortex_m::RunnerOutput output;  // what the runner printed
};

FirmwareRun run_firmware(const DemoOptions& options, const std::string& cpu) {
  FirmwareRun run;
  if (options.no_firmware) {
    run.reason = "--no-firmware";
    return run;
  }
  const std::optional<std::string> board = cortex_m::qemu_board(cpu);
  if (!board) {
    run.reason = "no QEMU board for " + cpu;
    return run;
  }
  const std::optional<fs::path> qemu = cortex_m::find_qemu();
  if (!qemu) {
    run.reason = "qemu-system-arm is not installed (./scripts/setup.sh installs it)";
    return run;
  }
  const cortex_m::RunnerSearch search =
      cortex_m::find_model_runner(cpu, kRunnerModel, options.firmware_dir);
  if (!search.image) {
    // Paths inside the working folder as the user would type them.
    cortex_m::RunnerSearch shown_search = search;
    for (fs::path& path : shown_search.looked_at) {
      const fs::path relative = fs::proximate(path);
      if (!relative.empty() && *relative.begin() != "..") path = relative;
    }
    run.reason = cortex_m::missing_runner_reason(cpu, shown_search);
    return run;
  }
  const fs::path& image = *search.image;
  run.image = image.string();
  run.board = *board;
  progress("running " + image.filename().string() + " on QEMU " + *board + " (" + cpu + ")");
  const std::optional<cortex_m::QemuRun> qemu_run =
      cortex_m::run_qemu(*qemu, *board, image, kQemuTimeoutSeconds);
  if (!qemu_run) {
    run.state = "failed";
    run.reason = "could not start qemu-system-arm";
    return run;
  }
  run.exit_status = qemu_run->exit_status;
  run.output = cortex_m::parse_runner_output(qemu_run->output);
  if (run.exit_status == 0) {
    run.state = "ok";
  } else {
    run.state = "failed";
    const std::string& error_line = run.output.error_line;
    run.reason = "exit status " + std::to_string(run.exit_status) +
                 (run.exit_status == cortex_m::kTimedOut ? " (timed out)" : "") +
                 (error_line.empty() ? "" : ": " + error_line);
  }
  return run;
}

// A path as the user would type it: "demo-kws.tflite" rather than "./demo-kws.tflite".
std::string shown(const fs::path& path) { return path.lexically_normal().string(); }

std::string hex(const std::vector<uint8_t>& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (uint8_t b : bytes) {
    text += kDigits[b >> 4];
    text += kDigits[b & 15];
  }
  return text;
}

// ---- one CPU ----------------------------------------------------------------------------------

struct TargetResult {
  std::string cpu;
  std::string extension;
  std::string kernels;  // the kernel variant that runs (and whose scratch is planned)
  std::string program_file;
  size_t program_bytes = 0;
  runtime::MemoryStatus host{};
  std::vector<std::vector<uint8_t>> outputs;
  uint64_t arena = 0;
  uint64_t lower_bound = 0;
  bool optimal = false;
  std::string chosen;
  std::string optimize;  // the preset and what it chose (optimize_summary)
  planner::PlanFigures figures;
  uint64_t first_fit_arena = 0;
  uint64_t apart_arena = 0;  // auto with every output apart from its inputs (--no-overlap)
  uint64_t naive_arena = 0;
  FirmwareRun firmware;
  json report;
};

const planner::Plan* find_plan(const std::vector<planner::Plan>& plans, const std::string& name) {
  for (const planner::Plan& plan : plans) {
    if (plan.algorithm == name) return &plan;
  }
  return nullptr;
}

TargetResult demo_target(const DemoOptions& options, const ir::Graph& graph,
                         const std::string& model_path, const std::string& cpu, bool write_svg,
                         emit::OutputFiles& files) {
  TargetResult result;
  pipeline::CompileOptions compile_options;
  compile_options.plan.cpu = cpu;
  compile_options.plan.algorithm = planner::Algorithm::kAuto;
  compile_options.plan.time_limit_ms = options.time_limit_ms;
  apply_optimize(options.optimize, compile_options.plan);
  char budget[32];
  std::snprintf(budget, sizeof budget, "%.1f s", options.time_limit_ms / 1000);
  progress("compiling for " + cpu + ": scratch sizes for its kernels, then the greedy rules and " +
           "an exact search (stops at the lower bound, or after " + budget + ")");
  pipeline::Compiled compiled;
  try {
    compiled = pipeline::compile(graph, compile_options);
  } catch (const InputError& e) {
    throw InputError(model_path + ": " + e.what());
  }
  const pipeline::PlannedGraph& planned = compiled.planned;
  result.cpu = planned.cpu.name;
  result.extension = std::string(target::extension_name(planned.cpu.extension));
  result.kernels = kernels::kernel_variant(planned.cpu.extension);

  const fs::path dir(options.output_dir);
  result.program_file = "demo-kws-" + planned.cpu.name + ".mote";
  files.add((dir / result.program_file).string(), compiled.program);
  result.program_bytes = compiled.program.size();

  const planner::Plan& plan = planned.plan();
  result.arena = plan.arena_bytes;
  result.lower_bound = planned.bound.bytes;
  result.optimal = plan.optimal;
  result.chosen = plan.chosen.empty() ? plan.algorithm : plan.chosen;
  result.optimize = optimize_summary(options.optimize, planned, compile_options.plan);
  result.figures = planner::plan_figures(planned.memory.problem, planned.bound, plan);
  // First-fit is TensorFlow Lite Micro's GreedyMemoryPlanner rule, on its own problem.
  pipeline::PlanRequest apart_request = compile_options.plan;
  apart_request.overlap = false;
  const pipeline::PlannedGraph apart = pipeline::plan_graph(graph, apart_request);
  result.first_fit_arena =
      planner::plan(pipeline::tflm_problem(graph, apart_request), planner::Algorithm::kFirstFit)
          .arena_bytes;
  result.apart_arena = apart.plan().arena_bytes;
  const planner::Plan* naive = find_plan(planned.plans, "naive");
  result.naive_arena = naive != nullptr
                           ? naive->arena_bytes
                           : planner::plan(planned.memory.problem, planner::Algorithm::kNaive)
                                 .arena_bytes;

  const planner::ReportContext context{model_path, planned.cpu.name, planned.cpu.extension};
  if (write_svg) {
    files.add((dir / kSvgFile).string(),
              planner::svg_report(planned.memory.problem, planned.bound, plan, context));
  }

  progress("running " + result.program_file + " on the host (portable kernels)");
  const pipeline::HostRun host = pipeline::run_on_host(compiled.program);
  result.host = host.status;
  result.outputs = host.outputs;

  result.firmware = run_firmware(options, planned.cpu.name);

  json report = planner::json_report(planned.memory.problem, planned.bound, planned.plans, context);
  report["program"] = {{"file", result.program_file}, {"bytes", result.program_bytes}};
  report["optimize"] = result.optimize;
  report["first_fit_arena_bytes"] = result.first_fit_arena;
  report["no_overlap_arena_bytes"] = result.apart_arena;
  report["host_run"] = {{"program_size", host.status.program_size},
                        {"constant_data", host.status.constant_data},
                        {"arena_planned", host.status.arena_planned},
                        {"runtime_state", host.status.runtime_state},
                        {"temp_allocator", host.status.temp_allocator}};
  json outputs = json::array();
  for (const auto& output : host.outputs) outputs.push_back(hex(output));
  report["host_run"]["outputs_hex"] = outputs;
  const FirmwareRun& fw = result.firmware;
  json firmware = {{"state", fw.state}};
  if (!fw.reason.empty()) firmware["reason"] = fw.reason;
  if (!fw.image.empty()) {
    firmware["image"] = fw.image;
    firmware["board"] = fw.board;
    firmware["exit_status"] = fw.exit_status;
    firmware["memory_status"] = fw.output.memory_lines;
    firmware["outputs_hex"] = fw.output.outputs_hex;
    firmware["outputs_match_expected"] = fw.output.outputs_match_expected;
    if (fw.output.instructions) firmware["instructions"] = *fw.output.instructions;
    if (fw.output.static_ram) firmware["static_ram"] = *fw.output.static_ram;
    if (fw.output.stack_peak) firmware["stack_peak"] = *fw.output.stack_peak;
  }
  report["firmware"] = firmware;
  result.report = std::move(report);
  return result;
}

// ---- the report -------------------------------------------------------------------------------

// What runs, and so what the plan reserves scratch for: the kernel variant the library has for
// the CPU's extension (portable, dsp or mve).
std::string cpu_title(const TargetResult& r) {
  return r.cpu + " (" + r.extension + ", " + r.kernels + " kernels)";
}

void print_target(const TargetResult& r, const fs::path& dir) {
  std::printf("\n%s\n", cpu_title(r).c_str());
  std::printf("  program      %s: %s bytes (%s of constants, read in place from flash)\n",
              shown(dir / r.program_file).c_str(), commas(r.program_bytes).c_str(),
              commas(r.host.constant_data).c_str());
  std::printf("  arena        %s bytes = activations %s + scratch %s (best plan: %s)\n",
              commas(r.arena).c_str(), commas(r.figures.activation_bytes).c_str(),
              commas(r.figures.scratch_bytes).c_str(), r.chosen.c_str());
  std::printf("  optimize     %s\n", r.optimize.c_str());
  if (r.arena == r.lower_bound) {
    std::printf("  lower bound  %s bytes: the plan meets it, no arena can be smaller\n",
                commas(r.lower_bound).c_str());
  } else {
    std::printf("  lower bound  %s bytes: the plan is %s above it (%s)\n",
                commas(r.lower_bound).c_str(), percent(r.figures.gap_percent).c_str(),
                r.optimal ? "proven optimal by the exact search" : "not proven optimal");
  }
  if (r.first_fit_arena > r.arena) {
    const uint64_t extra = r.first_fit_arena - r.arena;
    std::printf("  first-fit    %s bytes with TensorFlow Lite Micro's rule: %s bytes (%s) more\n",
                commas(r.first_fit_arena).c_str(), commas(extra).c_str(),
                percent(100.0 * static_cast<double>(extra) / static_cast<double>(r.arena)).c_str());
  } else {
    std::printf("  first-fit    %s bytes with TensorFlow Lite Micro's rule: the same here\n",
                commas(r.first_fit_arena).c_str());
  }
  std::printf("  no overlap   %s bytes with every output apart from its inputs (--no-overlap)\n",
              commas(r.apart_arena).c_str());
  std::printf("  no reuse     %s bytes if every buffer had its own place\n",
              commas(r.naive_arena).c_str());
  std::printf("  host run     ok; memory status:\n");
  char status[384];  // format_memory_status: enough for any 32-bit figures
  const size_t n = runtime::format_memory_status(r.host, status, sizeof status);
  std::stringstream lines(std::string(status, n));
  std::string line;
  while (std::getline(lines, line)) std::printf("                 %s\n", line.c_str());

  const FirmwareRun& fw = r.firmware;
  if (fw.state == "skipped") {
    std::printf("  firmware     skipped: %s\n", fw.reason.c_str());
    return;
  }
  if (fw.state == "failed") {
    std::printf("  firmware     FAILED on QEMU %s: %s\n", fw.board.c_str(), fw.reason.c_str());
    return;
  }
  std::string checks;
  std::vector<std::string> host_hex;
  for (const auto& output : r.outputs) host_hex.push_back(hex(output));
  if (fw.output.outputs_hex == host_hex) {
    checks = ", outputs equal this host run's byte for byte";
  } else if (fw.output.outputs_match_expected) {
    checks = ", outputs match the host's output built into the image";
  }
  if (fw.output.arena_planned && *fw.output.arena_planned != r.arena) {
    checks += " (firmware arena " + commas(*fw.output.arena_planned) +
              " bytes: built from another plan)";
  }
  std::printf("  firmware     ok on QEMU %s (%s)%s\n", fw.board.c_str(),
              fs::path(fw.image).filename().string().c_str(), checks.c_str());
  std::string figures;
  if (fw.output.instructions) {
    figures = commas(*fw.output.instructions) + " instructions per inference";
  }
  if (fw.output.static_ram && fw.output.stack_peak) {
    figures += (figures.empty() ? "" : "; ") + std::string("static RAM ") +
               commas(*fw.output.static_ram) + " bytes, stack peak " +
               commas(*fw.output.stack_peak) + " bytes";
  }
  if (!figures.empty()) std::printf("                 %s\n", figures.c_str());
  // The five memory status lines, as the device reports them; per-operator counts and the
  // rest stay in demo-report.json.
  for (const std::string& memory_line : fw.output.memory_lines) {
    for (const char* key : {"program_size:", "constant_data:", "arena_planned:", "runtime_state:",
                            "temp_allocator:"}) {
      if (memory_line.starts_with(std::string("I mote: ") + key)) {
        std::printf("                 %s\n", memory_line.c_str());
      }
    }
  }
}

// TensorFlow Lite Micro's first-fit rule meets the bound on many models; a model where it does
// not, planned just now, shows what the exact search is for.
struct FirstFitContrast {
  std::string model;
  std::string cpu;
  uint64_t first_fit = 0;
  uint64_t mote = 0;
  uint64_t lower_bound = 0;
};

FirstFitContrast first_fit_contrast(const DemoOptions& options, const std::string& cpu) {
  progress("planning the builder's visual-wake-words model (MobileNet shapes) for " + cpu +
           " with every rule, for comparison");
  pipeline::PlanRequest request;
  request.cpu = cpu;
  request.time_limit_ms = options.time_limit_ms;
  const ir::Graph graph = builder::vww_mobilenet_like();
  const pipeline::PlannedGraph planned = pipeline::plan_graph(graph, request);
  FirstFitContrast contrast;
  contrast.model = "vww_mobilenet_like";
  contrast.cpu = planned.cpu.name;
  contrast.first_fit =
      planner::plan(pipeline::tflm_problem(graph, request), planner::Algorithm::kFirstFit)
          .arena_bytes;
  contrast.mote = planned.plan().arena_bytes;
  contrast.lower_bound = planned.bound.bytes;
  return contrast;
}

void run_demo(const DemoOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const fs::path dir(options.output_dir);
  std::error_code error;
  fs::create_directories(dir, error);
  if (error || !fs::is_directory(dir)) {
    throw InputError("--output-dir " + options.output_dir + ": cannot create the folder");
  }
  const std::string model_name = shown(dir / kModelFile);
  const std::string svg_name = shown(dir / kSvgFile);
  const std::string report_name = shown(dir / kReportFile);

  progress("building a keyword-spotting model (DS-CNN layer shapes) with Mote's model builder");
  const std::vector<uint8_t> tflite = builder::write_model(builder::kws_dscnn_like());
  // Every file is staged and committed at the end: a failure leaves none of them.
  emit::OutputFiles files;
  files.add(model_name, tflite);
  // Read back from the file's bytes, exactly as `mote compile demo-kws.tflite` would.
  ir::Graph graph;
  try {
    graph = tflite::read_model(tflite);
  } catch (const InputError& e) {
    throw InputError(model_name + ": " + e.what());
  }

  std::vector<TargetResult> results;
  for (const char* cpu : kDemoCpus) {
    results.push_back(demo_target(options, graph, model_name, cpu, results.empty(), files));
  }
  bool first_fit_loses = false;
  for (const TargetResult& r : results) first_fit_loses |= r.first_fit_arena > r.arena;
  std::optional<FirstFitContrast> contrast;
  if (!first_fit_loses) contrast = first_fit_contrast(options, results.front().cpu);

  json report = {
      {"model",
       {{"file", model_name},
        {"bytes", tflite.size()},
        {"operators", graph.operators.size()},
        {"macs", ops::total_macs(graph)},
        {"constant_bytes", ir::constant_bytes(graph)}}},
      {"svg", {{"file", svg_name}, {"target", results.front().cpu}}},
      {"targets", json::array()}};
  for (const TargetResult& r : results) report["targets"].push_back(r.report);
  if (contrast) {
    report["first_fit_contrast"] = {{"model", contrast->model},
                                    {"target", contrast->cpu},
                                    {"first_fit_arena_bytes", contrast->first_fit},
                                    {"mote_arena_bytes", contrast->mote},
                                    {"lower_bound_bytes", contrast->lower_bound}};
  }
  files.add(report_name, report.dump(2) + "\n");

  std::printf("Mote demo: a keyword-spotting model, compiled for %zu Cortex-M CPUs\n",
              results.size());
  const ir::Tensor& input = graph.tensors[graph.inputs.front()];
  const ir::Tensor& output = graph.tensors[graph.outputs.front()];
  std::printf("  model        %s: %zu operators, %s MACs, %s bytes of weights; input %s %s, "
              "output %s %s\n",
              model_name.c_str(), graph.operators.size(),
              commas(static_cast<uint64_t>(ops::total_macs(graph))).c_str(),
              commas(static_cast<uint64_t>(ir::constant_bytes(graph))).c_str(),
              ir::shape_string(input.shape).c_str(), std::string(to_string(input.type)).c_str(),
              ir::shape_string(output.shape).c_str(), std::string(to_string(output.type)).c_str());
  for (const TargetResult& r : results) print_target(r, dir);

  std::printf("\n");
  // Scratch sizes and overlap rules depend on the CPU's kernels, so the plans differ.
  if (results.size() == 2 && results[0].arena != results[1].arena) {
    std::printf("The same model needs %s bytes of arena on %s and %s on %s: each CPU's kernels\n"
                "have their own scratch and their own rules for writing over a dying input.\n",
                commas(results[0].arena).c_str(), results[0].cpu.c_str(),
                commas(results[1].arena).c_str(), results[1].cpu.c_str());
  }
  if (contrast && contrast->first_fit > contrast->mote) {
    const uint64_t extra = contrast->first_fit - contrast->mote;
    std::printf("First-fit meets the bound here; not on the builder's %s (%s): first-fit\n"
                "needs %s bytes, Mote %s (lower bound %s): %s bytes (%s) less.\n",
                contrast->model.c_str(), contrast->cpu.c_str(),
                commas(contrast->first_fit).c_str(), commas(contrast->mote).c_str(),
                commas(contrast->lower_bound).c_str(), commas(extra).c_str(),
                percent(100.0 * static_cast<double>(extra) /
                        static_cast<double>(contrast->first_fit))
                    .c_str());
  }
  if (!options.no_firmware && !cortex_m::find_qemu()) {
    std::printf("To run on the emulated CPUs too: install gcc-arm-none-eabi and qemu-system-arm\n"
                "(./scripts/setup.sh does), then cmake --build build.\n");
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\nwrote %s (the %s plan as a picture), %s, %s and the programs (%.1f s)\n",
              svg_name.c_str(), results.front().cpu.c_str(), report_name.c_str(),
              model_name.c_str(), seconds);
  std::printf("next: mote inspect %s; mote plan %s --target cortex-m4 --svg plan.svg\n",
              model_name.c_str(), model_name.c_str());
  emit::flush_stdout();
  files.commit();

  for (const TargetResult& r : results) {
    if (r.firmware.state == "failed") {
      throw std::runtime_error("the firmware run on " + r.cpu + " failed: " + r.firmware.reason);
    }
  }
}

}  // namespace

void add_demo_command(CLI::App& app) {
  auto options = std::make_shared<DemoOptions>();
  auto* cmd = app.add_subcommand(
      "demo",
      "Show Mote end to end on a built-in keyword-spotting model (no file needed): write it as\n"
      "demo-kws.tflite, compile it for cortex-m55 and cortex-m4, run both programs on the host\n"
      "and, when QEMU and the firmware are built, under QEMU; report the arena against the\n"
      "lower bound and TensorFlow Lite Micro's first-fit rule. Writes demo-plan.svg and\n"
      "demo-report.json.\n"
      "Example: mote demo --output-dir /tmp/mote-demo");
  cmd->add_option("--output-dir", options->output_dir,
                  "Folder for demo-kws.tflite, the .mote programs, demo-plan.svg and "
                  "demo-report.json (created if missing)")
      ->capture_default_str();
  cmd->add_flag("--no-firmware", options->no_firmware, "Do not run the firmware under QEMU");
  cmd->add_option("--firmware-dir", options->firmware_dir,
                  "Folder holding firmware-<cpu>/ runner images (default: the build folder of\n"
                  "this mote, else the install's <prefix>/lib/mote/firmware)");
  add_time_limit_option(cmd, options->time_limit_ms, "Time budget of each exact search");
  add_optimize_options(cmd, options->optimize);
  cmd->callback([options] { run_demo(*options); });
}

}  // namespace mote::tools
