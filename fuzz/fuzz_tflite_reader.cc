// libFuzzer target: bytes -> TFLite reader -> IR validator; when the graph is small enough, the
// whole compile pipeline (plan, verify, lower, emit, load) for one of three CPU extensions, then
// one run of the program on the host. The reader must turn any bytes into a graph or an
// InputError; a graph it returns must validate and compile (or be refused with an InputError);
// a program the compiler emits must load and run; the per-operator check (`inspect --check`)
// must reach the reader's verdict. Any other exception is a finding.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "compiler/ir/error.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/stats.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/validate.h"
#include "compiler/pipeline/compile.h"
#include "compiler/tflite/reader.h"
#include "fuzz/fuzz_support.h"
#include "mote/runtime/program.h"

namespace {

// Graphs above these are read and validated but not compiled: the pipeline's cost grows with
// operator count and, through scratch sizes and kernel sums, with tensor sizes.
constexpr size_t kMaxCompileOperators = 256;
constexpr int64_t kMaxCompileActivationBytes = int64_t{16} << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // `mote inspect --check` reads on past each problem; its verdict must be the reader's.
  bool check_compiles = false;
  try {
    check_compiles = mote::tflite::check_model(std::span<const uint8_t>(data, size)).compiles();
  } catch (const mote::InputError&) {
  }
  mote::ir::Graph graph;
  try {
    graph = mote::tflite::read_model(std::span<const uint8_t>(data, size));
  } catch (const mote::InputError& e) {
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
  mote::ops::validate(graph);
  if (graph.operators.size() > kMaxCompileOperators ||
      mote::ir::activation_bytes(graph) > kMaxCompileActivationBytes) {
    return 0;
  }

  static const char* const kCpus[] = {"cortex-m0", "cortex-m4", "cortex-m55"};
  const uint32_t seed = mote::fuzz::hash_bytes(data, size);
  mote::pipeline::CompileOptions options;
  options.plan.cpu = kCpus[seed % 3];
  // A node limit that binds long before the time limit: same result on every machine.
  options.plan.node_limit = 2000;
  options.plan.time_limit_ms = 1000;
  mote::pipeline::Compiled compiled;
  try {
    compiled = mote::pipeline::compile(graph, options);
  } catch (const mote::InputError&) {
    return 0;  // e.g. parameters the kernels cannot run (the emitter's load says kUnsupported)
  }

  mote::fuzz::ExactBuffer bytes(compiled.program.data(), compiled.program.size(),
                                mote::runtime::kProgramAlignment);
  mote::runtime::LoadDiagnostic diagnostic;
  const auto loaded = mote::runtime::Program::load(bytes.data(), bytes.size(), &diagnostic);
  if (!loaded.ok()) {
    std::fprintf(stderr, "mote fuzz: compiled program does not load: %s\n", diagnostic.reason);
    std::abort();
  }
  mote::fuzz::run_loaded_program(loaded.value(), seed);
  return 0;
}
