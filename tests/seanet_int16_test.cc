// TFLM's int16 integration tests (tensorflow/lite/micro/integration_tests/seanet: one operator per
// model, int16 activations, with TFLM's golden output): every model found under the folder named
// by MOTE_SEANET_MODELS (`<name>.tflite` beside `<name>_input<k>_int16.csv` and
// `<name>_golden_int16.csv`, or `_int32.csv` for an int32 tensor) compiles for a scalar, a DSP and an MVE CPU and equals its golden
// output on the host. Skips when the variable is unset. Also int16 builder models that need
// nothing from outside.

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/builder/model_builder.h"
#include "compiler/ir/error.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "compiler/tflite/reader.h"

namespace mote {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCpus[] = {"cortex-m0plus", "cortex-m4", "cortex-m55"};

// A CSV of integers, as raw bytes of `width` (2: int16, 4: int32; little-endian hosts).
std::vector<uint8_t> csv_bytes(const fs::path& path, size_t width = 2) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  for (char& c : s) {
    if (c == ',' || c == '\n' || c == '\r') c = ' ';
  }
  std::istringstream values(s);
  std::vector<uint8_t> bytes;
  long v;
  while (values >> v) {
    const int16_t x16 = static_cast<int16_t>(v);
    const int32_t x32 = static_cast<int32_t>(v);
    uint8_t b[4];
    std::memcpy(b, width == 2 ? static_cast<const void*>(&x16) : &x32, width);
    bytes.insert(bytes.end(), b, b + width);
  }
  return bytes;
}

// `<stem>_int16.csv` or `<stem>_int32.csv` beside the model, as raw bytes; empty when neither.
std::optional<std::vector<uint8_t>> typed_csv(const fs::path& dir, const std::string& stem) {
  if (fs::exists(dir / (stem + "_int16.csv"))) return csv_bytes(dir / (stem + "_int16.csv"), 2);
  if (fs::exists(dir / (stem + "_int32.csv"))) return csv_bytes(dir / (stem + "_int32.csv"), 4);
  return std::nullopt;
}

TEST(SeanetInt16, EveryModelEqualsTflmGoldenOutput) {
  const char* root = std::getenv("MOTE_SEANET_MODELS");
  if (root == nullptr || !fs::is_directory(root)) {
    GTEST_SKIP() << "MOTE_SEANET_MODELS is not a folder of TFLM's seanet models";
  }
  int models = 0;
  for (const auto& entry : fs::recursive_directory_iterator(
           root, fs::directory_options::follow_directory_symlink)) {
    const fs::path model = entry.path();
    if (model.extension() != ".tflite") continue;
    const fs::path dir = model.parent_path();
    const std::string name = model.stem().string();
    const std::optional<std::vector<uint8_t>> golden = typed_csv(dir, name + "_golden");
    if (!golden) continue;
    std::vector<std::vector<uint8_t>> inputs;
    for (int k = 0;; ++k) {
      std::optional<std::vector<uint8_t>> input = typed_csv(dir, name + "_input" + std::to_string(k));
      if (!input) break;
      inputs.push_back(std::move(*input));
    }
    ++models;
    for (const char* cpu : kCpus) {
      pipeline::CompileOptions options;
      options.plan.cpu = cpu;
      try {
        const pipeline::Compiled compiled =
            pipeline::compile(tflite::read_model_file(model), options);
        const pipeline::HostRun run = pipeline::run_on_host(compiled.program, inputs);
        EXPECT_EQ(run.outputs.at(0), *golden) << model << " on " << cpu;
      } catch (const InputError& e) {
        ADD_FAILURE() << model << " on " << cpu << ": " << e.what();
      }
    }
  }
  std::printf("%d seanet models\n", models);
}

// An int8 builder graph turned 16x8: every activation int16 with zero point 0.
ir::Graph as_int16(ir::Graph g) {
  for (ir::Tensor& t : g.tensors) {
    if (t.type != ir::DataType::kInt8 || t.is_constant) continue;
    t.type = ir::DataType::kInt16;
    t.quantization.zero_point.assign(t.quantization.zero_point.size(), 0);
  }
  return g;
}

std::vector<uint8_t> int16_bytes(const std::vector<int16_t>& v) {
  std::vector<uint8_t> bytes(v.size() * 2);
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

// Needs nothing from outside: int16 PAD then STRIDED_SLICE move 2-byte elements exactly, on
// every CPU (a kernel that moved bytes, or padded with anything but 0, would differ).
TEST(Int16DataMovement, PadThenStridedSliceMoveTwoByteElements) {
  builder::ModelBuilder b;
  const builder::TensorId x = b.add_input({1, 2, 3, 2}, ir::DataType::kInt8, 0.01f, 0);
  const builder::TensorId padded = b.add_pad(x, {{0, 0}, {1, 1}, {0, 1}, {0, 0}});  // [1,4,4,2]
  b.mark_output(b.add_strided_slice(padded, {0, 0, 1, 0}, {1, 4, 4, 2}, {1, 2, 1, 1}));
  const ir::Graph graph = as_int16(b.build());
  std::vector<int16_t> input(12);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<int16_t>(-30000 + 4999 * i);
  // Padded [1,4,4,2]: rows 0 and 3 zero, column 3 zero; sliced rows 0 and 2, columns 1..3.
  std::vector<int16_t> expected;
  for (int y : {0, 2}) {
    for (int x = 1; x < 4; ++x) {
      for (int c = 0; c < 2; ++c) {
        const bool inside = y >= 1 && y <= 2 && x < 3;
        expected.push_back(inside ? input[((y - 1) * 3 + x) * 2 + c] : 0);
      }
    }
  }
  for (const char* cpu : kCpus) {
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    const pipeline::Compiled compiled = pipeline::compile(graph, options);
    const pipeline::HostRun run = pipeline::run_on_host(compiled.program, {int16_bytes(input)});
    EXPECT_EQ(run.outputs.at(0), int16_bytes(expected)) << cpu;
  }
}

}  // namespace
}  // namespace mote
