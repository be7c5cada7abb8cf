// `mote run`: loads a .mote program on the host, runs it with the portable kernels, prints the
// memory status and optionally writes the outputs.

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
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

// Enough for timing; a bound keeps a typo from running for hours.
constexpr int kMaxRepeat = 1000000;

struct RunOptions {
  std::string program;
  std::vector<std::string> inputs;
  std::string output;
  int repeat = 1;
};

// A .tflite model holds "TFL3" at bytes 4-7 (its FlatBuffers file identifier).
bool is_tflite(const emit::AlignedBuffer& bytes) {
  return bytes.size() >= 8 && std::memcmp(bytes.data() + 4, "TFL3", 4) == 0;
}

std::string shell_word(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("/._-+", c) != nullptr;
  });
  if (plain) return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Why the runtime refuses a program file, worded for the file: `mote compile` runs this same
// check before it writes a program, so a file it wrote never fails here; one that does is
// damaged or comes from another version of Mote.
std::string refusal(const emit::AlignedBuffer& bytes) {
  runtime::LoadDiagnostic diagnostic;
  const auto loaded = emit::load_program(bytes.span(), &diagnostic);
  if (loaded.ok()) return "";
  std::string where;
  switch (diagnostic.where) {
    case runtime::LoadDiagnostic::Where::kProgram: break;
    case runtime::LoadDiagnostic::Where::kTensor:
      where = "tensor " + std::to_string(diagnostic.index) + ": ";
      break;
    case runtime::LoadDiagnostic::Where::kOperator:
      where = "operator " + std::to_string(diagnostic.index) +
              (*diagnostic.op_name ? std::string(" (") + diagnostic.op_name + ")" : "") + ": ";
      break;
    case runtime::LoadDiagnostic::Where::kInput:
      where = "graph input " + std::to_string(diagnostic.index) + ": ";
      break;
    case runtime::LoadDiagnostic::Where::kOutput:
      where = "graph output " + std::to_string(diagnostic.index) + ": ";
      break;
  }
  const std::string detail = where + diagnostic.reason + " (" +
                             runtime::to_string(loaded.error()) + ")";
  if (loaded.error() == runtime::Error::kUnsupportedVersion) {
    return "made by another version of Mote (this one reads format version " +
           std::to_string(runtime::kFormatVersion) + "); compile the model again with this mote: " +
           detail;
  }
  return "damaged, or not a program made by this version of Mote; compile the model again: " +
         detail;
}

void run(const RunOptions& options) {
  const emit::AlignedBuffer bytes = emit::read_file_aligned(options.program);
  if (is_tflite(bytes)) {
    const std::string program =
        std::filesystem::path(options.program).replace_extension(".mote").string();
    throw InputError(options.program + ": a .tflite model, not a .mote program; compile it " +
                     "first: mote compile " + shell_word(options.program) + " -o " +
                     shell_word(program) + " && mote run " + shell_word(program));
  }
  if (const std::string why = refusal(bytes); !why.empty()) {
    throw InputError(options.program + ": " + why);
  }
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
  emit::OutputFiles files;
  if (!options.output.empty()) {
    std::vector<uint8_t> outputs;
    for (const auto& output : result.outputs) {
      outputs.insert(outputs.end(), output.begin(), output.end());
    }
    files.add(options.output, outputs);
  }
  char status[256];
  const size_t n = runtime::format_memory_status(result.status, status, sizeof(status));
  // The status goes to stderr when stdout carries the outputs.
  std::fwrite(status, 1, n, options.output == "-" ? stderr : stdout);
  emit::flush_stdout();
  files.commit();
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand(
      "run",
      "Run a .mote program on the host (portable kernels) and print its memory status.\n"
      "Inputs come from --input files (raw bytes, exactly each input's size, in input order) or,\n"
      "by default, from xorshift32 (state 1; s ^= s << 13; s ^= s >> 17; s ^= s << 5; byte =\n"
      "s & 0xFF), one stream filling the inputs in order: an integer input takes the bytes, a\n"
      "float32 input one byte per element, read as int8 and divided by 128 (values in [-1, 1)).\n"
      "Example: mote run kws.mote --input features.bin --output scores.bin");
  cmd->add_option("program", options->program, "The .mote program")->required();
  cmd->add_option("--input", options->inputs, "Raw input bytes; repeat once per graph input");
  cmd->add_option("--output", options->output,
                  "Write all outputs' raw bytes, concatenated, to FILE (- for stdout)");
  cmd->add_option("--repeat", options->repeat, "Run the program N times")
      ->check(CLI::Range(1, kMaxRepeat))
      ->capture_default_str();
  cmd->callback([options] { run(*options); });
}

}  // namespace mote::tools
