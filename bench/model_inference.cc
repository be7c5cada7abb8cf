// One inference of one model on the host, for `valgrind --tool=callgrind`: only
// mote_bench_inference runs operators, so
//   valgrind --tool=callgrind --toggle-collect=mote_bench_inference \
//       build/bench/mote_model_inference model.tflite --target cortex-m4 --input in.bin
// counts the instructions of exactly one inference (Executor::run), the way TensorFlow Lite
// Micro's figures count one Invoke. Loading, planning and checking stay outside the count.
//
//   mote_model_inference MODEL.tflite|PROGRAM.mote|builder:NAME [--target CPU] [--algorithm A]
//                        [--input FILE] [--expected FILE]
// Prints the memory figures and whether the outputs equal --expected (exit 1 if not). Without
// --input the inputs are Mote's default input (xorshift32, see compiler/pipeline/host_run.h).
// bench/callgrind_models.sh runs it for the shared MLPerf Tiny models.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "compiler/builder/models.h"
#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "compiler/tflite/reader.h"
#include "mote/runtime/executor.h"
#include "mote/runtime/program.h"

extern "C" __attribute__((noinline)) mote::runtime::Error mote_bench_inference(
    mote::runtime::Executor* executor) {
  return executor->run();
}

namespace {

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s MODEL.tflite|PROGRAM.mote|builder:NAME [--target CPU] [--algorithm A] "
               "[--input FILE] [--expected FILE]\n",
               argv0);
  return 2;
}

int run(int argc, char** argv) {
  if (argc < 2) return usage(argv[0]);
  const std::filesystem::path model = argv[1];
  mote::pipeline::CompileOptions options;
  options.plan.cpu = "cortex-m4";
  std::string input_path, expected_path;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage(argv[0]);
    if (arg == "--target") {
      options.plan.cpu = argv[++i];
    } else if (arg == "--algorithm") {
      const auto algorithm = mote::planner::algorithm_from_string(argv[++i]);
      if (!algorithm) return usage(argv[0]);
      options.plan.algorithm = *algorithm;
    } else if (arg == "--input") {
      input_path = argv[++i];
    } else if (arg == "--expected") {
      expected_path = argv[++i];
    } else {
      return usage(argv[0]);
    }
  }

  mote::emit::AlignedBuffer program;
  const std::string builder_prefix = "builder:";
  if (model.string().starts_with(builder_prefix)) {
    // A model from compiler/builder/models.h, e.g. builder:kws_dscnn_like.
    const std::string name = model.string().substr(builder_prefix.size());
    for (const auto& named : mote::builder::all_named_models()) {
      if (named.name == name) {
        program = mote::emit::AlignedBuffer(mote::pipeline::compile(named.graph, options).program);
      }
    }
    if (program.size() == 0) throw mote::InputError("no builder model named '" + name + "'");
  } else if (model.extension() == ".mote") {
    program = mote::emit::read_file_aligned(model);
  } else {
    try {
      program = mote::emit::AlignedBuffer(
          mote::pipeline::compile(mote::tflite::read_model_file(model), options).program);
    } catch (const mote::InputError& e) {
      throw mote::InputError(model.string() + ": " + e.what());
    }
  }
  const auto loaded = mote::runtime::Program::load(program.data(), program.size());
  if (!loaded.ok()) {
    throw mote::InputError(model.string() + ": " + mote::runtime::to_string(loaded.error()));
  }
  mote::emit::AlignedBuffer arena(loaded.value().arena_size(), loaded.value().arena_alignment());
  auto executor = mote::runtime::Executor::create(loaded.value(), arena.data(), arena.size());
  if (!executor.ok()) throw std::logic_error("the runtime rejects an arena of the planned size");

  // Inputs: the file's bytes in input order, or the default input.
  mote::pipeline::DefaultInput default_input;
  std::vector<uint8_t> input_bytes;
  if (!input_path.empty()) {
    const mote::emit::AlignedBuffer file = mote::emit::read_file_aligned(input_path);
    input_bytes.assign(file.data(), file.data() + file.size());
  }
  size_t offset = 0;
  for (size_t i = 0; i < executor->num_inputs(); ++i) {
    const mote::runtime::TensorView view = executor->input(i);
    if (input_path.empty()) {
      default_input.fill({view.data, view.size});
      continue;
    }
    if (offset + view.size > input_bytes.size()) {
      throw mote::InputError(input_path + ": " + std::to_string(input_bytes.size()) +
                             " bytes, the inputs need more");
    }
    std::memcpy(view.data, input_bytes.data() + offset, view.size);
    offset += view.size;
  }
  if (!input_path.empty() && offset != input_bytes.size()) {
    throw mote::InputError(input_path + ": " + std::to_string(input_bytes.size()) +
                           " bytes, the inputs take " + std::to_string(offset));
  }

  const mote::runtime::Error error = mote_bench_inference(&executor.value());
  if (error != mote::runtime::Error::kOk) {
    throw mote::InputError(model.string() + ": run failed: " + mote::runtime::to_string(error));
  }

  const mote::runtime::MemoryStatus status = executor->memory_status();
  std::printf("model %s\n", model.string().c_str());
  std::printf("extension %d\n", static_cast<int>(loaded.value().extension()));
  std::printf("program_size %zu\n", status.program_size);
  std::printf("arena_planned %zu\n", status.arena_planned);
  std::printf("runtime_state %zu\n", status.runtime_state);
  if (!expected_path.empty()) {
    const mote::emit::AlignedBuffer expected = mote::emit::read_file_aligned(expected_path);
    std::vector<uint8_t> outputs;
    for (size_t i = 0; i < executor->num_outputs(); ++i) {
      const mote::runtime::TensorView view = executor->output(i);
      outputs.insert(outputs.end(), view.data, view.data + view.size);
    }
    const bool match = outputs.size() == expected.size() &&
                       std::memcmp(outputs.data(), expected.data(), outputs.size()) == 0;
    std::printf("outputs_match_expected %s\n", match ? "yes" : "no");
    if (!match) return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const mote::InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s\n", e.what());
    return 1;
  }
}
