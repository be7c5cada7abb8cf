// `mote compile`: a .tflite model becomes a .mote program for one Cortex-M CPU.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "compiler/emit/c_source.h"
#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/pipeline/compile.h"
#include "compiler/planner/report.h"
#include "compiler/target/code_size.h"
#include "compiler/target/target.h"
#include "compiler/tflite/reader.h"
#include "mote/schema/mote_generated.h"
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
  std::vector<std::string> emit = {"mote"};  // --emit: mote, c (or both)
  std::string name;                          // --name: the C symbol of --emit c
  uint64_t ram_limit = 0;                    // --ram-limit: most arena bytes (0: none)
  uint64_t flash_limit = 0;  // --flash-limit: most program and code bytes (0: none)
  PlanningSettings planning;
  pipeline::CompileOptions options;  // planning.resolved(), once parsed
  import::ImportOptions import;
};

bool emits(const CompileSettings& s, const std::string& kind) {
  return std::find(s.emit.begin(), s.emit.end(), kind) != s.emit.end();
}

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

// How many of the largest contributors a budget message lists.
constexpr size_t kBudgetItems = 5;

using planner::grouped;

// The code the runtime and the kernels of the program's operator kinds bring into a firmware
// image, as measured in the firmware build's runners (an estimate); nullopt for a CPU never
// measured.
std::optional<target::CodeEstimate> code_estimate(const pipeline::Compiled& compiled) {
  const schema::Program* program = schema::GetProgram(compiled.program.data());
  std::vector<std::string> kinds;
  for (const schema::Operator* op : *program->operators()) {
    kinds.emplace_back(schema::EnumNameOpKind(op->kind()));
  }
  return target::estimate_code(compiled.planned.cpu.name, kinds);
}

// "about 140,000 bytes of runtime and kernels (an estimate from ...)" for the summary and the
// flash budget.
std::string code_text(const target::CodeEstimate& code) {
  std::string out = "about " + grouped(code.total()) + " bytes of runtime (" +
                    grouped(code.runtime_bytes) + ") and kernels of its operators (" +
                    grouped(code.kernel_bytes) +
                    "), an estimate from the firmware build's images";
  if (!code.unmeasured.empty()) {
    out += "; not measured:";
    for (const std::string& kind : code.unmeasured) out += " " + kind;
  }
  return out;
}

// "" when the plan and the program fit the budgets; else what does not fit and what took the
// space: the largest buffers live at the plan's peak step (RAM), the largest constants (flash).
// The option that would make the arena fit limit, as a sentence ("" if none would): --stream
// (--optimize ram) where its plan fits; another algorithm only where the lower bound leaves room.
std::string ram_remedy(const CompileSettings& s, const ir::Graph& model_graph,
                       const pipeline::PlannedGraph& planned, uint64_t limit) {
  if (s.planning.optimize != "ram") {  // the smallest arena, whatever it costs
    pipeline::PlanRequest smallest = s.options.plan;
    pipeline::apply_optimize(pipeline::Optimize::kRam, smallest);
    const uint64_t arena = pipeline::plan_graph(model_graph, smallest).plan().arena_bytes;
    if (arena <= limit) return "--stream fits: its arena is " + grouped(arena) + " bytes";
  }
  if (planned.bound.bytes <= limit && s.options.plan.algorithm != planner::Algorithm::kAuto &&
      s.options.plan.algorithm != planner::Algorithm::kExact) {
    return "the lower bound fits: try --algorithm auto";
  }
  if (planned.bound.bytes <= limit) return "the lower bound fits: try a larger --time-limit-ms";
  return "";
}

std::string budget_overrun(const CompileSettings& s, const ir::Graph& model_graph,
                           const ir::Graph& graph, const pipeline::Compiled& compiled) {
  const pipeline::PlannedGraph& planned = compiled.planned;
  const planner::Plan& plan = planned.plan();
  std::string out;
  if (s.ram_limit != 0 && plan.arena_bytes > s.ram_limit) {
    const planner::PlanFigures f = planner::plan_figures(planned.memory.problem, planned.bound, plan);
    std::vector<size_t> live = f.peak_live;
    const auto& buffers = planned.memory.problem.buffers;
    std::stable_sort(live.begin(), live.end(),
                     [&](size_t a, size_t b) { return buffers[a].size > buffers[b].size; });
    out += "the arena needs " + grouped(plan.arena_bytes) + " bytes, over --ram-limit " +
           grouped(s.ram_limit) + " by " + grouped(plan.arena_bytes - s.ram_limit) +
           " (lower bound " + grouped(planned.bound.bytes) + ")";
    if (const std::string remedy = ram_remedy(s, model_graph, planned, s.ram_limit); !remedy.empty()) {
      out += "; " + remedy;
    }
    uint64_t live_bytes = 0;
    for (size_t i : live) live_bytes += buffers[i].size;
    out += "; live at its peak, step " + std::to_string(f.peak_step);
    if (f.peak_step >= 0 && static_cast<size_t>(f.peak_step) < graph.operators.size()) {
      out += " (" + std::string(ir::to_string(graph.operators[static_cast<size_t>(f.peak_step)].type)) + ")";
    }
    out += ", " + grouped(live_bytes) + " bytes in " + planner::counted(live.size(), "buffer");
    // Outputs written over the inputs they replace share bytes: the list sums to more.
    if (live_bytes > plan.arena_bytes) {
      out += " (" + grouped(live_bytes - plan.arena_bytes) +
             " or more of them shared: outputs over the inputs they replace)";
    }
    out += ":";
    for (size_t i = 0; i < std::min(live.size(), kBudgetItems); ++i) {
      const planner::Buffer& b = buffers[live[i]];
      out += "\n  " + std::string(planner::to_string(b.kind)) + " " +
             planner::short_buffer_name(b.name, 60) + ": " + grouped(b.size) + " bytes";
    }
    if (live.size() > kBudgetItems) out += "\n  ... " + std::to_string(live.size() - kBudgetItems) + " more";
  }
  const std::optional<target::CodeEstimate> code = code_estimate(compiled);
  const uint64_t flash = compiled.program.size() + (code ? code->total() : 0);
  if (s.flash_limit != 0 && flash > s.flash_limit) {
    // Constants with the first operator that reads them, largest first.
    struct Item {
      uint64_t bytes;
      std::string text;
    };
    std::vector<Item> items;
    uint64_t constant_total = 0;
    std::vector<bool> seen(graph.tensors.size(), false);
    for (size_t o = 0; o < graph.operators.size(); ++o) {
      for (int32_t t : graph.operators[o].inputs) {
        if (t < 0 || seen[static_cast<size_t>(t)]) continue;
        const ir::Tensor& tensor = graph.tensors[static_cast<size_t>(t)];
        if (!tensor.is_constant) continue;
        seen[static_cast<size_t>(t)] = true;
        constant_total += tensor.data.size();
        items.push_back({tensor.data.size(),
                         "operator " + std::to_string(o) + " (" +
                             std::string(ir::to_string(graph.operators[o].type)) + ") " +
                             planner::short_buffer_name(tensor.name, 60) + ": " +
                             grouped(tensor.data.size()) + " bytes"});
      }
    }
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.bytes > b.bytes; });
    if (!out.empty()) out += "\n";
    out += "the program is " + grouped(compiled.program.size()) + " bytes (" +
           grouped(constant_total) + " of the model's constants)";
    if (code) out += " and the code it links " + code_text(*code);
    out += ": " + grouped(flash) + " bytes, over --flash-limit " + grouped(s.flash_limit) +
           " by " + grouped(flash - s.flash_limit) + "; the largest constants:";
    for (size_t i = 0; i < std::min(items.size(), kBudgetItems); ++i) out += "\n  " + items[i].text;
  }
  return out;
}

// The closing advice: what is left besides the options the overrun already named (no other
// --algorithm changes flash).
std::string budget_advice(const CompileSettings& s) {
  return s.ram_limit != 0 ? "the option named above if any, a smaller model, or a larger budget"
                          : "a smaller model (fewer or smaller constants) or a larger --flash-limit";
}

void compile_model(const CompileSettings& s) {
  const auto [model_graph, compiled] = compile_model_file(s.model, s.options, s.import);
  // Steps are the program's: the model's operators in the order the plan chose.
  const ir::Graph& graph = compiled.planned.graph;
  if (const std::string overrun = budget_overrun(s, model_graph, graph, compiled); !overrun.empty()) {
    throw InputError(s.model + ": does not fit for " + compiled.planned.cpu.name + ": " + overrun +
                     "\nnothing written; " + budget_advice(s));
  }
  const std::string output = s.output.empty() ? default_output(s.model) : s.output;
  const bool emit_mote = emits(s, "mote");
  const bool emit_c = emits(s, "c");

  const pipeline::PlannedGraph& planned = compiled.planned;
  planner::ReportContext context{s.model, planned.cpu.name, planned.cpu.extension,
                                 planned.memory.kernels, planned.order,
                                 planned.memory.outside_arena};
  // Every output is staged first and committed together: a failure leaves none of them.
  emit::OutputFiles files;
  const std::string& json_path = !s.json_path.empty() ? s.json_path : s.report_path;
  if (!json_path.empty()) {
    nlohmann::json report = planner::json_report(planned.memory.problem, planned.bound,
                                                 planned.plans, context);
    report["program"] = {{"file", output}, {"bytes", compiled.program.size()}};
    if (const auto code = code_estimate(compiled)) {
      report["program"]["code_bytes_estimate"] = {{"runtime", code->runtime_bytes},
                                                  {"kernels", code->kernel_bytes}};
    }
    files.add(json_path, report.dump(2) + "\n");
  }
  if (!s.svg_path.empty()) {
    files.add(s.svg_path, planner::svg_report(planned.memory.problem, planned.bound,
                                              planned.plan(), context));
  }
  if (emit_mote) files.add(output, compiled.program);
  std::string c_files;
  if (emit_c) {
    // OUTPUT's stem names the pair (kws.mote or kws.c -> kws.c, kws.h) and, unless --name says
    // otherwise, the array.
    const std::filesystem::path stem = std::filesystem::path(output).replace_extension();
    const std::string symbol =
        s.name.empty() ? emit::to_c_identifier(stem.filename().string()) : s.name;
    const std::string header_path = stem.string() + ".h";
    const std::string source_path = stem.string() + ".c";
    const emit::CSource c = emit::c_source(
        compiled.program, symbol, std::filesystem::path(header_path).filename().string(),
        std::filesystem::path(s.model).filename().string());
    files.add(header_path, c.header);
    files.add(source_path, c.source);
    c_files = source_path + ", " + header_path;
  }

  const planner::Plan& plan = planned.plan();
  const planner::PlanFigures figures =
      planner::plan_figures(planned.memory.problem, planned.bound, plan);
  // The summary goes to stderr when stdout carries the program or the JSON.
  FILE* summary = output == "-" || json_path == "-" ? stderr : stdout;
  const std::string written =
      emit_mote ? output + (emit_c ? ", " + c_files : "") : c_files;
  std::fprintf(summary, "mote: %s -> %s for %s (%s)%s, %s\n", s.model.c_str(), written.c_str(),
               planned.cpu.name.c_str(),
               std::string(target::extension_name(planned.cpu.extension)).c_str(),
               default_target_note(s.planning.target_option).c_str(),
               planner::counted(graph.operators.size(), "operator").c_str());
  std::fprintf(summary, "  program: %zu bytes\n", compiled.program.size());
  if (const auto code = code_estimate(compiled)) {
    std::fprintf(summary, "  code:    %s\n", code_text(*code).c_str());
  }
  std::fprintf(summary,
               "  arena:   %llu bytes (activations %llu, scratch %llu), lower bound %llu, %s\n",
               static_cast<unsigned long long>(plan.arena_bytes),
               static_cast<unsigned long long>(figures.activation_bytes),
               static_cast<unsigned long long>(figures.scratch_bytes),
               static_cast<unsigned long long>(planned.bound.bytes),
               plan.optimal ? "optimal" : "not proven optimal");
  if (!planned.memory.outside_arena.empty()) {
    std::fprintf(summary, "           + %s\n",
                 planner::outside_arena_text(planned.memory.outside_arena).c_str());
  }
  if (planned.quantized_inputs > 0) {
    std::fprintf(summary, "  inputs:  %s\n", pipeline::quantized_inputs_sentence(planned).c_str());
  }
  std::fprintf(summary, "  plan:    %s%s\n", plan.algorithm.c_str(),
               plan.chosen.empty() || plan.chosen == plan.algorithm
                   ? ""
                   : (" (" + plan.chosen + " won)").c_str());
  std::fprintf(summary, "  optimize: %s\n",
               optimize_summary(s.planning.optimize, planned, s.options.plan).c_str());
  std::fprintf(summary, "  kernels: %s\n", variant_counts(planned.memory.kernels).c_str());
  std::fprintf(summary, "  %s\n", planner::order_sentence(planned.order).c_str());
  emit::flush_stdout();
  files.commit();
}

}  // namespace

void add_compile_command(CLI::App& app) {
  auto s = std::make_shared<CompileSettings>();
  auto* cmd = app.add_subcommand(
      "compile",
      "Compile an int8 .tflite (or quantized .onnx) model into a .mote program for one Cortex-M CPU: import, lower,\n"
      "plan one arena (activations and every kernel's scratch), verify the plan, emit.\n"
      "Example: mote compile kws.tflite --target cortex-m4 -o kws.mote --json kws-plan.json");
  cmd->add_option("model", s->model, "The model: .tflite, or quantized .onnx")->required();
  add_import_options(cmd, s->import);
  cmd->add_option("-o,--output", s->output,
                  "The program to write (default: MODEL with .mote; - for stdout); with --emit c\n"
                  "its stem names the C pair: -o kws.c (or kws.mote) writes kws.c and kws.h");
  cmd->add_option("--emit", s->emit,
                  "What to write: mote (the .mote program, the default), c (a .c/.h pair for C\n"
                  "and C++ firmware: the program as a 16-byte aligned const array, and\n"
                  "<NAME>_ARENA_BYTES, <NAME>_ARENA_ALIGN, <NAME>_INPUT0_BYTES... as constants),\n"
                  "or both: --emit mote,c")
      ->delimiter(',')
      ->check(CLI::IsMember({"mote", "c"}))
      ->capture_default_str();
  cmd->add_option("--name", s->name,
                  "--emit c: the array's C name; its upper case prefixes the constants\n"
                  "(default: the output's stem, e.g. kws_program -> KWS_PROGRAM_ARENA_BYTES)")
      ->check(CLI::Validator(
          [](const std::string& v) {
            return emit::is_c_identifier(v) ? std::string()
                                            : "'" + v + "' is not a C identifier ([A-Za-z_][A-Za-z0-9_]*)";
          },
          "SYMBOL"));
  add_planning_options(cmd, s->planning,
                       "The CPU; scratch sizes, and so the plan, depend on its extension");
  auto* json = add_json_option(cmd, s->json_path, "Write the plan report as JSON");
  cmd->add_option("--report", s->report_path,
                  "Old spelling of --json FILE, kept for one release")
      ->excludes(json);
  cmd->add_option("--svg", s->svg_path, "Draw the plan as SVG into FILE");
  cmd->add_option("--ram-limit", s->ram_limit,
                  "Fail (exit 2, nothing written) when the arena exceeds BYTES; the message lists\n"
                  "the largest buffers live at the plan's peak step")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--flash-limit", s->flash_limit,
                  "Fail (exit 2, nothing written) when the program and the code it links (the\n"
                  "runtime and its operators' kernels, an estimate measured on Mote's firmware\n"
                  "images, for CPUs measured) exceed BYTES; the message lists the largest\n"
                  "constants (weights, biases) and their operators")
      ->check(CLI::PositiveNumber);
  cmd->callback([s] {
    if (emits(*s, "c") && s->output == "-") {
      throw CLI::ValidationError("--emit c", "writes a .c/.h pair, not standard output; give -o FILE.c");
    }
    if (emits(*s, "c") && emits(*s, "mote")) {
      const std::string ext = std::filesystem::path(s->output).extension().string();
      if (ext == ".c" || ext == ".h") {
        throw CLI::ValidationError("-o", "with --emit mote,c the program and the pair would share '" +
                                             s->output + "'; give -o NAME.mote");
      }
    }
    if (!s->name.empty() && !emits(*s, "c")) {
      throw CLI::ValidationError("--name", "names the array of --emit c; add --emit c");
    }
    s->options = s->planning.resolved();
    compile_model(*s);
  });
}

}  // namespace mote::tools
