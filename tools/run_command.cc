// `mote run`: loads a .mote program on the host, runs it with the portable kernels, prints the
// memory status and optionally writes the outputs.

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "mote/runtime/executor.h"
#include "mote/runtime/program.h"
#include "tools/commands.h"

namespace mote::tools {
namespace {

struct RunOptions {
  std::string program;
  std::vector<std::string> inputs;
  std::string output;
  int repeat = 1;
};

std::string describe(const runtime::LoadDiagnostic& d) {
  using Where = runtime::LoadDiagnostic::Where;
  switch (d.where) {
    case Where::kProgram: return d.reason;
    case Where::kTensor: return "tensor " + std::to_string(d.index) + ": " + d.reason;
    case Where::kOperator: return "operator " + std::to_string(d.index) + ": " + d.reason;
    case Where::kInput: return "graph input " + std::to_string(d.index) + ": " + d.reason;
    case Where::kOutput: return "graph output " + std::to_string(d.index) + ": " + d.reason;
  }
  return d.reason;
}

// The default input: one xorshift32 stream (state 1) filling every input in order.
std::vector<std::vector<uint8_t>> generated_inputs(const runtime::Executor& executor) {
  std::vector<std::vector<uint8_t>> inputs;
  uint32_t s = 1;
  for (size_t i = 0; i < executor.num_inputs(); ++i) {
    std::vector<uint8_t> bytes(executor.input(i).size);
    for (auto& b : bytes) {
      s ^= s << 13;
      s ^= s >> 17;
      s ^= s << 5;
      b = static_cast<uint8_t>(s & 0xFF);
    }
    inputs.push_back(std::move(bytes));
  }
  return inputs;
}

std::vector<std::vector<uint8_t>> file_inputs(const RunOptions& options,
                                              const runtime::Executor& executor) {
  if (options.inputs.size() != executor.num_inputs()) {
    throw InputError(options.program + ": the program has " +
                     std::to_string(executor.num_inputs()) + " input(s), " +
                     std::to_string(options.inputs.size()) + " --input file(s) given");
  }
  std::vector<std::vector<uint8_t>> inputs;
  for (size_t i = 0; i < options.inputs.size(); ++i) {
    const emit::AlignedBuffer file = emit::read_file_aligned(options.inputs[i]);
    const size_t needed = executor.input(i).size;
    if (file.size() != needed) {
      throw InputError(options.inputs[i] + ": " + std::to_string(file.size()) + " bytes, input " +
                       std::to_string(i) + " needs exactly " + std::to_string(needed));
    }
    inputs.emplace_back(file.data(), file.data() + file.size());
  }
  return inputs;
}

void run(const RunOptions& options) {
  const emit::AlignedBuffer bytes = emit::read_file_aligned(options.program);
  runtime::LoadDiagnostic diagnostic;
  const auto program = runtime::Program::load(bytes.data(), bytes.size(), &diagnostic);
  if (!program.ok()) {
    throw InputError(options.program + ": " + runtime::to_string(program.error()) + ": " +
                     describe(diagnostic));
  }
  emit::AlignedBuffer arena(program->arena_size(), program->arena_alignment());
  auto executor = runtime::Executor::create(*program, arena.data(), arena.size());
  if (!executor.ok()) {
    throw InputError(options.program + ": " + runtime::to_string(executor.error()));
  }
  const auto inputs =
      options.inputs.empty() ? generated_inputs(*executor) : file_inputs(options, *executor);
  for (int r = 0; r < options.repeat; ++r) {
    // The plan may reuse input bytes for later tensors: write the inputs before every run.
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::copy(inputs[i].begin(), inputs[i].end(), executor->input(i).data);
    }
    if (const runtime::Error e = executor->run(); e != runtime::Error::kOk) {
      throw InputError(options.program + ": run failed: " + runtime::to_string(e));
    }
  }
  char status[256];
  const size_t n = runtime::format_memory_status(executor->memory_status(), status, sizeof(status));
  std::fwrite(status, 1, n, stdout);
  std::fflush(stdout);
  if (!options.output.empty()) {
    std::vector<uint8_t> outputs;
    for (size_t i = 0; i < executor->num_outputs(); ++i) {
      const runtime::TensorView v = executor->output(i);
      outputs.insert(outputs.end(), v.data, v.data + v.size);
    }
    emit::write_file_atomically(options.output, outputs);
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand(
      "run",
      "Run a .mote program on the host (portable kernels) and print its memory status.\n"
      "Inputs come from --input files (raw bytes, exactly each input's size, in input order) or,\n"
      "by default, from xorshift32 (state 1; s ^= s << 13; s ^= s >> 17; s ^= s << 5; byte =\n"
      "s & 0xFF), one stream filling the inputs in order.\n"
      "Example: mote run kws.mote --input features.bin --output scores.bin");
  cmd->add_option("program", options->program, "The .mote program")->required();
  cmd->add_option("--input", options->inputs, "Raw input bytes; repeat once per graph input");
  cmd->add_option("--output", options->output, "Write all outputs' raw bytes, concatenated");
  cmd->add_option("--repeat", options->repeat, "Run the program N times")
      ->check(CLI::PositiveNumber);
  cmd->callback([options] { run(*options); });
}

}  // namespace mote::tools
