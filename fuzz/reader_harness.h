#pragma once
// The model readers' harness, shared by fuzz_tflite_reader and fuzz_onnx_reader: bytes -> the
// reader -> IR validator; when the graph is small enough, the whole compile pipeline (plan,
// verify, lower, emit, load) for one of three CPU extensions, then one run of the program on the
// host. The reader must turn any bytes into a graph or an InputError; a graph it returns must
// validate and compile (or be refused with an InputError); a program the compiler emits must
// load and run; the per-operator check (`inspect --check`) must reach the reader's verdict. Any
// other exception is a finding.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "compiler/ir/error.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/stats.h"
#include "compiler/ops/validate.h"
#include "compiler/pipeline/compile.h"
#include "fuzz/fuzz_support.h"
#include "mote/runtime/program.h"

namespace mote::fuzz {

// Graphs above these are read and validated but not compiled: the pipeline's cost grows with
// operator count and, through scratch sizes and kernel sums, with tensor sizes.
inline constexpr size_t kMaxCompileOperators = 256;
inline constexpr int64_t kMaxCompileActivationBytes = int64_t{16} << 20;

// `check(bytes).compiles()` is the per-operator verdict, `read(bytes)` the reader.
template <typename Check, typename Read>
int read_compile_and_run(const uint8_t* data, size_t size, Check check, Read read) {
  const std::span<const uint8_t> bytes(data, size);
  bool check_compiles = false;
  try {
    check_compiles = check(bytes).compiles();
  } catch (const InputError&) {
  }
  ir::Graph graph;
  try {
    graph = read(bytes);
  } catch (const InputError& e) {
    if (check_compiles) {
      std::fprintf(stderr, "check_model says the model compiles, read_model refuses it: %s\n",
                   e.what());
      std::abort();
    }
    return 0;
  }
  if (!check_compiles) {
    std::fprintf(stderr, "read_model accepts a model that check_model refuses\n");
    std::abort();
  }
  // The reader's contract: what it returns passes the validator (this throws otherwise, and an
  // escaping exception is a crash for libFuzzer).
  ops::validate(graph);
  if (graph.operators.size() > kMaxCompileOperators ||
      ir::activation_bytes(graph) > kMaxCompileActivationBytes) {
    return 0;
  }

  static const char* const kCpus[] = {"cortex-m0", "cortex-m4", "cortex-m55"};
  const uint32_t seed = hash_bytes(data, size);
  pipeline::CompileOptions options;
  options.plan.cpu = kCpus[seed % 3];
  // A node limit that binds long before the time limit: same result on every machine.
  options.plan.node_limit = 2000;
  options.plan.time_limit_ms = 1000;
  pipeline::Compiled compiled;
  try {
    compiled = pipeline::compile(graph, options);
  } catch (const InputError&) {
    return 0;  // e.g. parameters the kernels cannot run (the emitter's load says kUnsupported)
  }

  ExactBuffer program(compiled.program.data(), compiled.program.size(),
                      runtime::kProgramAlignment);
  runtime::LoadDiagnostic diagnostic;
  const auto loaded = runtime::Program::load(program.data(), program.size(), &diagnostic);
  if (!loaded.ok()) {
    std::fprintf(stderr, "mote fuzz: compiled program does not load: %s\n", diagnostic.reason);
    std::abort();
  }
  run_loaded_program(loaded.value(), seed);
  return 0;
}

}  // namespace mote::fuzz
