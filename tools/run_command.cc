// `mote run`: loads a .mote program on the host, runs it with the portable kernels, prints the
// memory status, the outputs (dequantized) and the time per inference, and optionally writes
// the outputs' bytes and a JSON report.

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/emit/emit.h"
#include "compiler/emit/program_file.h"
#include "compiler/ir/error.h"
#include "compiler/ir/graph.h"
#include "compiler/pipeline/host_run.h"
#include "mote/schema/mote_generated.h"
#include "mote/runtime/executor.h"
#include "mote/runtime/program.h"
#include "tools/commands.h"
#include "tools/options.h"

namespace mote::tools {
namespace {

// Enough for timing; a bound keeps a typo from running for hours.
constexpr int kMaxRepeat = 1000000;

struct RunOptions {
  std::string program;
  std::vector<std::string> inputs;
  std::string output;
  std::string json_path;  // --json FILE ("-": stdout)
  int repeat = 1;
};

// Values printed per output in the text; --json has them all.
constexpr size_t kPrintedValues = 16;
constexpr size_t kTopK = 5;

// One graph output as the user reads it: real values (scale * (q - zero_point) for a quantized
// integer tensor, the value itself otherwise).
struct OutputValues {
  const schema::TensorT* tensor;
  std::string layout;  // "NCHW" or "NHWC" where the model stated one (ONNX), else ""
  std::vector<double> values;
  std::vector<int64_t> raw;  // the stored integers (empty for float32)
};

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

OutputValues decode(const schema::TensorT& t, const std::vector<uint8_t>& bytes) {
  OutputValues out{&t, "", {}, {}};
  const auto integers = [&](auto tag, size_t width) {
    using T = decltype(tag);
    for (size_t i = 0; i + width <= bytes.size(); i += width) {
      const int64_t q = static_cast<int64_t>(load<T>(bytes.data() + i));
      out.raw.push_back(q);
      out.values.push_back(t.scale != 0.0f ? static_cast<double>(t.scale) *
                                                 static_cast<double>(q - t.zero_point)
                                           : static_cast<double>(q));
    }
  };
  switch (t.type) {
    case schema::DataType::Float32:
      for (size_t i = 0; i + 4 <= bytes.size(); i += 4) out.values.push_back(load<float>(bytes.data() + i));
      break;
    case schema::DataType::Int8: integers(int8_t{}, 1); break;
    case schema::DataType::Int16: integers(int16_t{}, 2); break;
    case schema::DataType::Int32: integers(int32_t{}, 4); break;
    case schema::DataType::Int64: integers(int64_t{}, 8); break;
    case schema::DataType::UInt8:
    case schema::DataType::Bool: integers(uint8_t{}, 1); break;
    case schema::DataType::Int4: break;  // weights only, never an output
    case schema::DataType::UInt32: integers(uint32_t{}, 4); break;
    case schema::DataType::UInt64: integers(uint64_t{}, 8); break;
  }
  return out;
}

// A classifier's scores: [1, N] (or [N]) with N >= 2.
bool classifier_shaped(const schema::TensorT& t) {
  const auto& s = t.shape;
  return (s.size() == 2 && s[0] == 1 && s[1] >= 2) || (s.size() == 1 && s[0] >= 2);
}

// The indices of the k largest values, largest first (ties: the lower index first).
std::vector<size_t> top_k(const std::vector<double>& values, size_t k) {
  std::vector<size_t> order(values.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  k = std::min(k, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](size_t a, size_t b) {
                      return values[a] > values[b] || (values[a] == values[b] && a < b);
                    });
  order.resize(k);
  return order;
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", v);
  return text;
}


std::string describe(size_t index, const OutputValues& o) {
  const schema::TensorT& t = *o.tensor;
  std::string text = "output " + std::to_string(index) + ": " +
                     emit::data_type_name(t.type) + " " + ir::shape_string(t.shape) +
                     (o.layout.empty() ? "" : " " + o.layout);
  if (t.scale != 0.0f && !o.raw.empty()) {
    text += ", scale " + number(t.scale) + ", zero point " + std::to_string(t.zero_point) +
            " (values dequantized)";
  }
  text += "\n  values:";
  for (size_t i = 0; i < std::min(o.values.size(), kPrintedValues); ++i) text += " " + number(o.values[i]);
  if (o.values.size() > kPrintedValues) {
    text += " ... (" + std::to_string(o.values.size()) + " in all; every one in --json)";
  }
  text += "\n";
  if (classifier_shaped(t)) {
    text += "  top " + std::to_string(std::min(kTopK, o.values.size())) + ":";
    const std::vector<size_t> top = top_k(o.values, kTopK);
    for (size_t i = 0; i < top.size(); ++i) {
      text += std::string(i ? "," : "") + " [" + std::to_string(top[i]) + "] " + number(o.values[top[i]]);
    }
    text += "\n";
  }
  return text;
}

nlohmann::json output_json(size_t index, const OutputValues& o) {
  const schema::TensorT& t = *o.tensor;
  nlohmann::json j = {{"index", index},
                      {"type", emit::data_type_name(t.type)},
                      {"shape", t.shape},
                      {"values", nlohmann::json::array()}};
  for (double v : o.values) j["values"].push_back(std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr));
  if (!o.raw.empty()) {
    j["raw"] = o.raw;
    if (t.scale != 0.0f) {
      j["scale"] = t.scale;
      j["zero_point"] = t.zero_point;
    }
  }
  if (classifier_shaped(t)) {
    nlohmann::json top = nlohmann::json::array();
    for (size_t i : top_k(o.values, kTopK)) top.push_back({{"index", i}, {"value", o.values[i]}});
    j["top"] = std::move(top);
  }
  return j;
}

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
  if (*diagnostic.program_cpu != '\0') {
    where += std::string("a program for ") + diagnostic.program_cpu + " on a runtime with " +
             diagnostic.runtime_kernels + " kernels: ";
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
                       std::to_string(program->input_size(i)) +
                       (program->input_takes_float(i) ? " (float32 values, which the runtime "
                                                        "quantizes)"
                                                      : ""));
    }
    inputs.emplace_back(file.data(), file.data() + file.size());
  }
  pipeline::HostRun result;
  const auto start = std::chrono::steady_clock::now();
  try {
    result = program->run(inputs, options.repeat);
  } catch (const InputError& e) {
    throw program_error(e);
  }
  const double ms_per_inference =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() /
      options.repeat;
  const std::unique_ptr<schema::ProgramT> unpacked = emit::read_program(bytes.span());
  std::vector<OutputValues> decoded;
  for (size_t i = 0; i < result.outputs.size(); ++i) {
    decoded.push_back(decode(*unpacked->tensors.at(unpacked->outputs.at(i)), result.outputs[i]));
    if (i < unpacked->output_layouts.size()) decoded.back().layout = unpacked->output_layouts[i];
  }
  emit::OutputFiles files;
  if (!options.output.empty()) {
    std::vector<uint8_t> outputs;
    for (const auto& output : result.outputs) {
      outputs.insert(outputs.end(), output.begin(), output.end());
    }
    files.add(options.output, outputs);
  }
  char status[384];  // format_memory_status: enough for any 32-bit figures
  const size_t n = runtime::format_memory_status(result.status, status, sizeof(status));
  std::string text(status, n);
  // The CPU the program was compiled for: its plan fits that CPU's kernels; the host runs the
  // portable ones, which fit every plan.
  const std::string cpu = unpacked->target ? unpacked->target->cpu : "";
  const std::string kernels = emit::target_kernels(*unpacked);
  text += "target: " + cpu + " (" + kernels + " kernels); run here with the portable kernels\n";
  // The layout each input was fed in, where the model states one (an ONNX model's 4-D inputs).
  for (size_t i = 0; i < unpacked->input_layouts.size() && i < unpacked->inputs.size(); ++i) {
    if (unpacked->input_layouts[i].empty()) continue;
    const schema::TensorT& t = *unpacked->tensors.at(unpacked->inputs[i]);
    text += "input " + std::to_string(i) + ": " + emit::data_type_name(t.type) + " " + ir::shape_string(t.shape) +
            " " + unpacked->input_layouts[i] + "\n";
  }
  for (size_t i = 0; i < decoded.size(); ++i) text += describe(i, decoded[i]);
  char timing[160];
  std::snprintf(timing, sizeof(timing),
                "time: %.4f ms per inference on this host (portable kernels; %d run%s)\n",
                ms_per_inference, options.repeat, options.repeat == 1 ? "" : "s, mean");
  text += timing;
  if (!options.json_path.empty()) {
    nlohmann::json report;
    report["program"] = options.program;
    report["repeat"] = options.repeat;
    report["ms_per_inference"] = ms_per_inference;
    report["target"] = {{"cpu", cpu}, {"kernels", kernels}};
    const runtime::MemoryStatus& m = result.status;
    report["memory_status"] = {{"program_size", m.program_size},
                               {"constant_data", m.constant_data},
                               {"arena_planned", m.arena_planned},
                               {"activations", m.activations},
                               {"scratch", m.scratch},
                               {"lower_bound", m.lower_bound},
                               {"runtime_state", m.runtime_state},
                               {"temp_allocator", m.temp_allocator},
                               {"inputs_outside_arena", m.inputs_outside}};
    report["outputs"] = nlohmann::json::array();
    for (size_t i = 0; i < decoded.size(); ++i) report["outputs"].push_back(output_json(i, decoded[i]));
    files.add(options.json_path, report.dump(2) + "\n");
  }
  // The text goes to stderr when stdout carries the outputs or the JSON.
  const bool stdout_taken = options.output == "-" || options.json_path == "-";
  std::fputs(text.c_str(), stdout_taken ? stderr : stdout);
  emit::flush_stdout();
  files.commit();
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand(
      "run",
      "Run a .mote program on the host (portable kernels); print its memory status, its outputs\n"
      "(dequantized: scale * (q - zero_point); the top 5 of a [1,N] classifier output) and the\n"
      "time per inference on this host.\n"
      "Inputs come from --input files (raw bytes, exactly each input's size, in input order) or,\n"
      "by default, from xorshift32 (state 1; s ^= s << 13; s ^= s >> 17; s ^= s << 5; byte =\n"
      "s & 0xFF), one stream filling the inputs in order: an integer input takes the bytes, a\n"
      "float32 input one byte per element, read as int8 and divided by 128 (values in [-1, 1)).\n"
      "A float input the program holds quantized (--float-inputs quantized, the default) takes\n"
      "float32 bytes as the model's input did, and the runtime quantizes them.\n"
      "Example: mote run kws.mote --input features.bin --output scores.bin");
  cmd->add_option("program", options->program, "The .mote program")->required();
  cmd->add_option("--input", options->inputs, "Raw input bytes; repeat once per graph input");
  cmd->add_option("--output", options->output,
                  "Write all outputs' raw bytes, concatenated, to FILE (- for stdout)");
  add_json_option(cmd, options->json_path,
                  "Write the outputs (every value, dequantized, and the raw integers), the time\n"
                  "per inference and the memory status as JSON");
  cmd->add_option("--repeat", options->repeat,
                  "Run the program N times; the time printed is the mean per inference")
      ->check(CLI::Range(1, kMaxRepeat))
      ->capture_default_str();
  cmd->callback([options] {
    if (options->output == "-" && options->json_path == "-") {
      throw CLI::ValidationError("--output, --json", "only one of them can go to standard output");
    }
    run(*options);
  });
}

}  // namespace mote::tools
