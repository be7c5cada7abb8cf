// TFLM's int16 integration tests (tensorflow/lite/micro/integration_tests/seanet: one operator per
// model, int16 activations, with TFLM's golden output): every model found under the folder named
// by MOTE_SEANET_MODELS (`<name>.tflite` beside `<name>_input<k>_int16.csv` and
// `<name>_golden_int16.csv`, or `_int32.csv` for an int32 tensor) compiles for a scalar, a DSP and an MVE CPU and equals its golden
// output on the host. Skips when the variable is unset. (16x8 builder models that need nothing
// from outside: int16_layers_test.cc.)

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

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

}  // namespace
}  // namespace mote
