// `mote run`: loads a .mote program on the host, runs it with the portable kernels, prints the
// memory status and optionally writes the outputs.

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/pipeline/host_run.h"
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

void run(const RunOptions& options) {
  const emit::AlignedBuffer bytes = emit::read_file_aligned(options.program);
  const auto program_error = [&](const InputError& e) {
    return InputError(options.program + ": " + e.what());
  };
  std::optional<pipeline::HostProgram> program;
  try {
    program.emplace(bytes.span());
  } catch (const InputError& e) {
    throw program_error(e);
  }
  std::vector<std::vector<uint8_t>> inputs;
  if (!options.inputs.empty() && options.inputs.size() != program->num_inputs()) {
    throw InputError(options.program + ": the program has " +
                     std::to_string(program->num_inputs()) + " input(s), " +
                     std::to_string(options.inputs.size()) + " --input file(s) given");
  }
  for (size_t i = 0; i < options.inputs.size(); ++i) {
    const emit::AlignedBuffer file = emit::read_file_aligned(options.inputs[i]);
    if (file.size() != program->input_size(i)) {
      throw InputError(options.inputs[i] + ": " + std::to_string(file.size()) + " bytes, input " +
                       std::to_string(i) + " needs exactly " +
                       std::to_string(program->input_size(i)));
    }
    inputs.emplace_back(file.data(), file.data() + file.size());
  }
  pipeline::HostRun result;
  try {
    result = program->run(inputs, options.repeat);
  } catch (const InputError& e) {
    throw program_error(e);
  }
  char status[256];
  const size_t n = runtime::format_memory_status(result.status, status, sizeof(status));
  std::fwrite(status, 1, n, stdout);
  std::fflush(stdout);
  if (!options.output.empty()) {
    std::vector<uint8_t> outputs;
    for (const auto& output : result.outputs) {
      outputs.insert(outputs.end(), output.begin(), output.end());
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
