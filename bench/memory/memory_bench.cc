// Memory benchmark: for every model (the builder's models always, the .tflite files in
// <shared>/models when present) and each kernel extension (scalar, DSP, MVE), the arena each
// placement algorithm needs, the lower bound, the runtime state beside the arena and the
// program size. Everything comes from the compiler pipeline and the runtime (the programs are
// loaded and bound to an arena of the planned size); written as Markdown and JSON.
//
//   build/bench/mote_memory_bench [--shared DIR] [--no-shared] [--only NAME]
//       [--markdown FILE] [--json FILE] [--time-limit-ms MS] [--node-limit N]
//
// The exact search stops after --node-limit nodes (default 2,000,000) or --time-limit-ms
// (default 60,000), whichever comes first; with the node limit binding, every figure is the same
// on every machine. bench/memory/run.sh writes bench/memory/results.{md,json}.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compiler/builder/models.h"
#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/pipeline/compile.h"
#include "compiler/tflite/reader.h"
#include "mote/runtime/executor.h"
#include "mote/runtime/program.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using mote::planner::Algorithm;

// One CPU per kernel extension: its scratch sizes decide the plan.
struct ExtensionCpu {
  const char* extension;
  const char* cpu;
};
constexpr ExtensionCpu kExtensions[] = {
    {"scalar", "cortex-m3"}, {"dsp", "cortex-m4"}, {"mve", "cortex-m55"}};

struct Model {
  std::string name;
  std::string source;  // "builder" or the file
  mote::ir::Graph graph;
};

struct Row {
  std::string model;
  std::string source;
  std::string extension;
  std::string cpu;
  // Every output apart from its inputs (--no-overlap): the algorithms compared on the standard
  // problem, TensorFlow Lite Micro's rule (first-fit) among them.
  uint64_t naive = 0, first_fit = 0, best_fit = 0, exact = 0, auto_arena = 0, lower_bound = 0;
  // auto with the kernels' overlap rules (the default), and that problem's bound; the program,
  // runtime_state and arena + state are that compile's.
  uint64_t overlap_arena = 0, overlap_bound = 0;
  std::string auto_chosen;
  bool auto_optimal = false;
  uint64_t activations = 0, scratch = 0;  // the auto plan's split, as the program records it
  uint64_t runtime_state = 0;
  uint64_t program_bytes = 0;
  uint64_t constant_bytes = 0;
};

uint64_t arena_of(const std::vector<mote::planner::Plan>& plans, const std::string& algorithm) {
  for (const auto& plan : plans) {
    if (plan.algorithm == algorithm) return plan.arena_bytes;
  }
  throw std::logic_error("auto did not report " + algorithm);
}

Row measure(const Model& model, const ExtensionCpu& target, double time_limit_ms,
            uint64_t node_limit) {
  mote::pipeline::CompileOptions options;
  options.plan.cpu = target.cpu;
  options.plan.algorithm = Algorithm::kAuto;
  options.plan.time_limit_ms = time_limit_ms;
  options.plan.node_limit = node_limit;
  options.plan.overlap = false;
  const mote::pipeline::PlannedGraph apart = mote::pipeline::plan_graph(model.graph, options.plan);
  const auto& plans = apart.plans;
  options.plan.overlap = true;
  const mote::pipeline::Compiled compiled = mote::pipeline::compile(model.graph, options);

  Row row;
  row.model = model.name;
  row.source = model.source;
  row.extension = target.extension;
  row.cpu = target.cpu;
  row.auto_arena = apart.plan().arena_bytes;
  row.auto_chosen = apart.plan().chosen;
  row.auto_optimal = apart.plan().optimal;
  row.naive = arena_of(plans, "naive");
  row.first_fit = arena_of(plans, "first-fit");
  row.best_fit = arena_of(plans, "best-fit");
  row.exact = arena_of(plans, "exact");
  row.lower_bound = apart.bound.bytes;
  row.overlap_arena = compiled.planned.plan().arena_bytes;
  row.overlap_bound = compiled.planned.bound.bytes;
  row.program_bytes = compiled.program.size();

  // The runtime's own figures: load the program and bind an arena of exactly the planned size.
  const mote::emit::AlignedBuffer program(compiled.program);
  const auto loaded = mote::runtime::Program::load(program.data(), program.size());
  if (!loaded.ok()) throw std::logic_error(model.name + ": the runtime rejects the program");
  mote::emit::AlignedBuffer arena(loaded.value().arena_size(), loaded.value().arena_alignment());
  const auto executor =
      mote::runtime::Executor::create(loaded.value(), arena.data(), arena.size());
  if (!executor.ok()) throw std::logic_error(model.name + ": the runtime rejects the arena");
  const mote::runtime::MemoryStatus status = executor.value().memory_status();
  if (status.arena_planned != row.overlap_arena) {
    throw std::logic_error(model.name + ": the program's arena differs from the plan's");
  }
  row.runtime_state = status.runtime_state;
  row.constant_bytes = status.constant_data;
  row.activations = status.activations;
  row.scratch = status.scratch;
  return row;
}

std::string commas(uint64_t value) {
  std::string digits = std::to_string(value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

// "73,728 (+33.3%)" against the best plan; just the number when it equals it.
std::string versus(uint64_t value, uint64_t best) {
  if (value == best || best == 0) return commas(value);
  char gap[32];
  std::snprintf(gap, sizeof gap, " (+%.1f%%)", 100.0 * (double(value) - double(best)) / double(best));
  return commas(value) + gap;
}

std::string markdown_table(const std::vector<Row>& rows) {
  std::string out =
      "| model | ext | naive | first-fit | best-fit | exact | auto | lower bound | "
      "with overlap (bound) | runtime_state | arena + state | program |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const Row& r : rows) {
    const std::string auto_cell =
        commas(r.auto_arena) + (r.auto_optimal ? "" : " (not proven optimal)");
    out += "| " + r.model + " | " + r.extension + " | " + commas(r.naive) + " | " +
           versus(r.first_fit, r.auto_arena) + " | " + versus(r.best_fit, r.auto_arena) + " | " +
           versus(r.exact, r.auto_arena) + " | " + auto_cell + " | " + commas(r.lower_bound) +
           " | " + commas(r.overlap_arena) + " (" + commas(r.overlap_bound) + ")" + " | " +
           commas(r.runtime_state) + " | " + commas(r.overlap_arena + r.runtime_state) +
           " | " + commas(r.program_bytes) + " |\n";
  }
  return out;
}

json to_json(const Row& r) {
  return {{"model", r.model},
          {"source", r.source},
          {"extension", r.extension},
          {"cpu", r.cpu},
          {"arena_bytes",
           {{"naive", r.naive},
            {"first-fit", r.first_fit},
            {"best-fit", r.best_fit},
            {"exact", r.exact},
            {"auto", r.auto_arena}}},
          {"auto_chosen", r.auto_chosen},
          {"auto_optimal", r.auto_optimal},
          {"lower_bound_bytes", r.lower_bound},
          {"overlap_arena_bytes", r.overlap_arena},
          {"overlap_lower_bound_bytes", r.overlap_bound},
          {"activation_bytes", r.activations},
          {"scratch_bytes", r.scratch},
          {"runtime_state_bytes", r.runtime_state},
          {"program_bytes", r.program_bytes},
          {"constant_bytes", r.constant_bytes}};
}

void write(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::fputs(text.c_str(), stdout);
    return;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw mote::InputError("cannot write '" + path + "'");
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--shared DIR] [--no-shared] [--only NAME] [--markdown FILE|-] "
               "[--json FILE|-] [--time-limit-ms MS] [--node-limit N]\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string shared = MOTE_SHARED_DIR;
  std::string only;
  std::string markdown_path = "-";
  std::string json_path;
  double time_limit_ms = 60000;
  uint64_t node_limit = 2000000;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--shared" && has_value) {
      shared = argv[++i];
    } else if (arg == "--no-shared") {
      shared.clear();
    } else if (arg == "--only" && has_value) {
      only = argv[++i];
    } else if (arg == "--markdown" && has_value) {
      markdown_path = argv[++i];
    } else if (arg == "--json" && has_value) {
      json_path = argv[++i];
    } else if (arg == "--time-limit-ms" && has_value) {
      time_limit_ms = std::atof(argv[++i]);
    } else if (arg == "--node-limit" && has_value) {
      node_limit = std::strtoull(argv[++i], nullptr, 10);
    } else {
      return usage(argv[0]);
    }
  }

  try {
    std::vector<Model> builder_models;
    for (auto& named : mote::builder::all_named_models()) {
      builder_models.push_back({named.name, "builder", std::move(named.graph)});
    }
    std::vector<Model> shared_models;
    const fs::path models_dir = fs::path(shared) / "models";
    if (!shared.empty() && fs::is_directory(models_dir)) {
      std::vector<fs::path> files;
      for (const auto& entry : fs::directory_iterator(models_dir)) {
        if (entry.path().extension() == ".tflite") files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
      for (const fs::path& file : files) {
        mote::ir::Graph graph;
        try {
          graph = mote::tflite::read_model_file(file);
        } catch (const mote::InputError& e) {
          throw mote::InputError(file.string() + ": " + e.what());
        }
        shared_models.push_back({file.stem().string(), file.filename().string(), std::move(graph)});
      }
    }

    std::vector<Row> builder_rows, shared_rows;
    json rows_json = json::array();
    auto run_all = [&](const std::vector<Model>& models, std::vector<Row>& rows) {
      for (const Model& model : models) {
        if (!only.empty() && model.name != only) continue;
        for (const ExtensionCpu& target : kExtensions) {
          std::fprintf(stderr, "memory bench: %s for %s (%s)\n", model.name.c_str(), target.cpu,
                       target.extension);
          rows.push_back(measure(model, target, time_limit_ms, node_limit));
          rows_json.push_back(to_json(rows.back()));
        }
      }
    };
    run_all(shared_models, shared_rows);
    run_all(builder_models, builder_rows);
    if (shared_rows.empty() && builder_rows.empty()) {
      std::fprintf(stderr, "memory bench: no model named '%s'\n", only.c_str());
      return 2;
    }

    std::string md =
        "Arena bytes per placement algorithm and kernel extension (scalar: cortex-m3, dsp: "
        "cortex-m4, mve: cortex-m55; activations and every kernel's scratch, 16-byte aligned). "
        "Percentages are above `auto` (what `mote compile` uses: the greedy rules, then the exact "
        "search seeded with the best). first-fit is TensorFlow Lite Micro's rule. runtime_state "
        "is the RAM the runtime needs besides the arena, as measured on this host (64-bit "
        "pointers; half of it on Cortex-M). Exact search limit: " +
        commas(node_limit) + " nodes.\n";
    if (!shared_rows.empty()) {
      // The folder by its own name ("shared/models"), not this machine's path.
      const fs::path shown = fs::path(shared).lexically_normal().filename() / "models";
      md += "\n### Shared models (" + shown.string() + ")\n\n" + markdown_table(shared_rows);
    }
    if (!builder_rows.empty()) {
      md += "\n### Builder models (src/compiler/builder/models.h)\n\n" +
            markdown_table(builder_rows);
    }
    write(markdown_path, md);
    if (!json_path.empty()) {
      const json doc = {{"node_limit", node_limit},
                        {"time_limit_ms", time_limit_ms},
                        {"extensions", {{"scalar", "cortex-m3"}, {"dsp", "cortex-m4"}, {"mve", "cortex-m55"}}},
                        {"rows", rows_json}};
      write(json_path, doc.dump(2) + "\n");
    }
  } catch (const mote::InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s\n", e.what());
    return 1;
  }
  return 0;
}
