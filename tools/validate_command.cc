// `mote validate`: the target CPU's kernels against the host's portable ones (the reference), on
// the user's own model, layer by layer. The model is compiled for the CPU; the host runs the
// program operator by operator; so does the firmware build's generic runner image for that CPU
// under QEMU (targets/cortex-m/runner/validate_main.cc, which reads the program and the inputs
// over semihosting: no firmware rebuild per model). Every operator's outputs must be equal.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "compiler/emit/emit.h"
#include "compiler/emit/program_file.h"
#include "compiler/ir/error.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "compiler/tflite/reader.h"
#include "targets/cortex-m/host/qemu_runner.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/progress.h"
#include "tools/temp_dir.h"

namespace mote::tools {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxInputs = 1000;

struct ValidateSettings {
  std::string model;
  int inputs = 1;
  RunnerSettings runner;
  PlanningSettings planning;
  pipeline::CompileOptions options;  // planning.resolved(), once parsed
  import::ImportOptions import;
};

// The element at `index` of a layer as a number (integers as they are stored, floats as floats).
double element(const pipeline::HostProgram::Layer& layer, const std::vector<uint8_t>& bytes,
               size_t index) {
  const uint8_t* p = bytes.data();
  switch (layer.type) {
    case runtime::DataType::kFloat32: {
      float v;
      std::memcpy(&v, p + index * 4, 4);
      return v;
    }
    case runtime::DataType::kInt16: {
      int16_t v;
      std::memcpy(&v, p + index * 2, 2);
      return v;
    }
    case runtime::DataType::kInt32: {
      int32_t v;
      std::memcpy(&v, p + index * 4, 4);
      return v;
    }
    case runtime::DataType::kInt8: return static_cast<int8_t>(p[index]);
    default: return p[index];
  }
}

size_t element_size(runtime::DataType type) {
  switch (type) {
    case runtime::DataType::kFloat32:
    case runtime::DataType::kInt32: return 4;
    case runtime::DataType::kInt16: return 2;
    case runtime::DataType::kInt64: return 8;
    default: return 1;
  }
}

struct Difference {
  size_t differing = 0;  // elements
  double largest = 0;
  size_t at = 0;
  double host = 0;
  double target = 0;
};

Difference compare(const pipeline::HostProgram::Layer& layer, const std::vector<uint8_t>& target) {
  Difference d;
  const size_t width = element_size(layer.type);
  for (size_t i = 0; i * width + width <= layer.bytes.size(); ++i) {
    if (std::memcmp(layer.bytes.data() + i * width, target.data() + i * width, width) == 0) continue;
    const double h = element(layer, layer.bytes, i);
    const double t = element(layer, target, i);
    const double diff = std::isnan(h) || std::isnan(t) ? INFINITY : std::fabs(h - t);
    if (d.differing == 0 || diff > d.largest) d = {d.differing, diff, i, h, t};
    ++d.differing;
  }
  return d;
}

std::string last_line(const std::string& text) {
  size_t end = text.find_last_not_of("\n");
  if (end == std::string::npos) return "no output";
  const size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", v);
  return text;
}

// What validate runs: the program and the CPU it is for, compiled from the model with the
// command's options, or a .mote file as it is (the program a user ships).
struct ProgramToValidate {
  std::vector<uint8_t> bytes;
  std::string cpu;
  size_t operators = 0;
  std::string target_note;  // a model compiled for the default CPU says so
};

ProgramToValidate program_to_validate(const ValidateSettings& s) {
  if (!emit::is_program_file(s.model)) {
    auto [graph, compiled] = compile_model_file(s.model, s.options, s.import);
    return {std::move(compiled.program), compiled.planned.cpu.name,
            compiled.planned.graph.operators.size(), default_target_note(s.planning.target_option)};
  }
  const emit::ProgramFile file = emit::read_program_file(s.model);
  const std::unique_ptr<schema::ProgramT>& program = file.program;
  const std::string cpu = check_program_target(s.model, *program, s.planning);
  return {std::vector<uint8_t>(file.bytes.data(), file.bytes.data() + file.bytes.size()), cpu,
          program->operators.size()};
}

void validate(const ValidateSettings& s) {
  const ProgramToValidate compiled = program_to_validate(s);
  const std::string cpu = compiled.cpu;
  const std::optional<std::string> board = cortex_m::qemu_board(cpu);
  if (!board) {
    throw InputError("--target " + cpu + ": no QEMU board runs it; validate on cortex-m4, "
                     "cortex-m7, cortex-m33, cortex-m55 or cortex-m3");
  }
  const std::optional<fs::path> qemu = cortex_m::find_qemu();
  if (!qemu) throw InputError("qemu-system-arm is not installed (apt-get install qemu-system-arm)");
  const fs::path image = s.runner.image(cpu);

  TempDir dir;
  emit::write_file_atomically(dir.path / "program.mote", compiled.bytes);
  pipeline::HostProgram host(compiled.bytes);
  double largest_overall = 0;
  for (int k = 0; k < s.inputs; ++k) {
    // Input 0 is mote run's default stream; the others, streams with other seeds.
    const std::vector<std::vector<uint8_t>> inputs = host.default_inputs(static_cast<uint32_t>(k + 1));
    std::vector<uint8_t> concatenated;
    for (const auto& in : inputs) concatenated.insert(concatenated.end(), in.begin(), in.end());
    emit::write_file_atomically(dir.path / "input.bin", concatenated);
    std::error_code ignored;
    fs::remove(dir.path / "layers.bin", ignored);
    const std::vector<pipeline::HostProgram::Layer> layers = host.run_layers(inputs);

    const std::optional<cortex_m::QemuRun> run =
        cortex_m::run_qemu(*qemu, *board, image, s.runner.timeout_seconds, dir.path);
    if (!run || run->exit_status != 0) {
      const cortex_m::RunnerOutput parsed = cortex_m::parse_runner_output(run ? run->output : "");
      throw InputError(image.filename().string() + " on " + *board + " failed" +
                       (run && run->exit_status == cortex_m::kTimedOut
                            ? " (no end after " + std::to_string(s.runner.timeout_seconds) + " s)"
                            : "") +
                       (parsed.error_line.empty() ? (run ? ": " + last_line(run->output) : "")
                                                  : ": " + parsed.error_line));
    }
    const emit::AlignedBuffer target = emit::read_file_aligned(dir.path / "layers.bin");
    size_t offset = 0;
    int first_mismatch = -1;
    Difference first;
    for (size_t i = 0; i < layers.size(); ++i) {
      const auto& layer = layers[i];
      if (offset + layer.bytes.size() > target.size()) {
        throw InputError("the runner wrote " + std::to_string(target.size()) +
                         " bytes of layers, fewer than the program's");
      }
      const std::vector<uint8_t> bytes(target.data() + offset,
                                       target.data() + offset + layer.bytes.size());
      offset += layer.bytes.size();
      const Difference d = compare(layer, bytes);
      if (d.differing == 0) continue;
      largest_overall = std::max(largest_overall, d.largest);
      if (first_mismatch < 0) {
        first_mismatch = static_cast<int>(i);
        first = d;
      }
    }
    if (first_mismatch >= 0) {
      const auto& layer = layers[static_cast<size_t>(first_mismatch)];
      std::printf("mote validate: %s on %s (%s), input %d: MISMATCH\n", s.model.c_str(), cpu.c_str(),
                  board->c_str(), k);
      std::printf("  first mismatching operator: %d (%s): %zu of %zu elements differ, the largest by "
                  "%s (element %zu: host %s, %s %s)\n",
                  first_mismatch, layer.op.c_str(), first.differing,
                  layer.bytes.size() / element_size(layer.type), number(first.largest).c_str(),
                  first.at, number(first.host).c_str(), cpu.c_str(), number(first.target).c_str());
      std::printf("  largest difference in any operator: %s\n", number(largest_overall).c_str());
      emit::flush_stdout();
      throw CommandExit{kExitMismatch};
    }
  }
  std::printf("mote validate: %s on %s%s (%s): every output of all %zu operators equals the host's "
              "portable kernels, for %d input%s\n",
              s.model.c_str(), cpu.c_str(), compiled.target_note.c_str(), board->c_str(),
              compiled.operators, s.inputs,
              s.inputs == 1 ? "" : "s");
  emit::flush_stdout();
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto s = std::make_shared<ValidateSettings>();
  auto* cmd = app.add_subcommand(
      "validate",
      "Check the target CPU's kernels against the host's portable kernels on your model: compile\n"
      "it for the CPU, run it operator by operator on the host and under QEMU (the firmware\n"
      "build's generic runner, firmware-<cpu>/validate_runner.elf, which loads any program), and\n"
      "compare every operator's outputs. Exit 0 when all are equal, 1 naming the first\n"
      "mismatching operator and the largest difference, 2 when it cannot run.\n"
      "Example: mote validate kws.tflite --target cortex-m4 --inputs 10\n"
      "         mote validate kws.mote --inputs 10");
  cmd->add_option("model", s->model,
                  "The model (.tflite, or quantized .onnx), or a .mote program (validated as it\n"
                  "is, compiled with whatever options: the program you ship)")
      ->required();
  add_import_options(cmd, s->import);
  add_planning_options(cmd, s->planning,
                       "The CPU whose kernels to check (a .mote program: the CPU it was compiled for)");
  cmd->add_option("--inputs", s->inputs,
                  "How many inputs: the first is mote run's default stream, the others streams\n"
                  "of the same kind with other seeds")
      ->check(CLI::Range(1, kMaxInputs))
      ->capture_default_str();
  add_runner_options(cmd, s->runner, "");
  cmd->callback([s] {
    s->options = s->planning.resolved();
    validate(*s);
  });
}

}  // namespace mote::tools
