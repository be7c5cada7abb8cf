#pragma once
// Progress lines for steps that may take a while (the exact search), on stderr and only when
// stderr is a terminal: people see what runs, scripts and tests get the reports alone.

#include <unistd.h>

#include <cstdio>
#include <string>

#include "compiler/ir/error.h"
#include "compiler/pipeline/compile.h"
#include "compiler/planner/planner.h"
#include "compiler/import/model_file.h"

namespace mote::tools {

inline void announce_planning(const std::string& model, const std::string& cpu,
                              planner::Algorithm algorithm, double time_limit_ms) {
  if (isatty(STDERR_FILENO) == 0) return;
  if (algorithm != planner::Algorithm::kExact && algorithm != planner::Algorithm::kAuto) return;
  std::fprintf(stderr,
               "mote: planning %s for %s: %sexact search, stops at the lower bound or after "
               "%.1f s (--time-limit-ms)\n",
               model.c_str(), cpu.c_str(),
               algorithm == planner::Algorithm::kAuto ? "greedy rules, then " : "",
               time_limit_ms / 1000);
  std::fflush(stderr);
}

// A .tflite or .onnx file read for a command (the caller names the file in its error). When the
// first problem is an operator's or a tensor's, the message says how to list every one.
inline ir::Graph read_model_for_command(const std::string& model,
                                        const import::ImportOptions& import = {}) {
  try {
    return import::read_model_file(model, import);
  } catch (const InputError& e) {
    std::string why = e.what();
    if (why.rfind("operator ", 0) == 0 || why.rfind("tensor ", 0) == 0) {
      why += " (mote inspect --check " + model + " lists every operator Mote cannot compile)";
    }
    throw InputError(why);
  }
}

// A model file read and compiled, as compile, analyze and validate do it: the planning
// announced, and a refusal (mote::InputError) named by the file.
struct CompiledModel {
  ir::Graph graph;
  pipeline::Compiled compiled;
};

inline CompiledModel compile_model_file(const std::string& model,
                                        const pipeline::CompileOptions& options,
                                        const import::ImportOptions& import = {}) {
  try {
    CompiledModel m;
    m.graph = read_model_for_command(model, import);
    announce_planning(model, options.plan.cpu, options.plan.algorithm, options.plan.time_limit_ms);
    m.compiled = pipeline::compile(m.graph, options);
    return m;
  } catch (const InputError& e) {
    throw InputError(model + ": " + e.what());
  }
}

}  // namespace mote::tools
