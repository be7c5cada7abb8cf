// TFLM's int16 integration tests (tensorflow/lite/micro/integration_tests/seanet: one operator per
// model, int16 activations, with TFLM's golden output): every model found under the folder named
// by MOTE_SEANET_MODELS (`<name>.tflite` beside `<name>_input<k>_int16.csv` and
// `<name>_golden_int16.csv`) compiles for a scalar, a DSP and an MVE CPU and equals its golden
// output on the host. Skips when the variable is unset.

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
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

// A CSV of integers, as int16 raw bytes (little-endian hosts).
std::vector<uint8_t> int16_csv(const fs::path& path) {
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
    const int16_t x = static_cast<int16_t>(v);
    uint8_t b[2];
    std::memcpy(b, &x, 2);
    bytes.insert(bytes.end(), b, b + 2);
  }
  return bytes;
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
    const fs::path golden = dir / (name + "_golden_int16.csv");
    if (!fs::exists(golden)) continue;
    std::vector<std::vector<uint8_t>> inputs;
    for (int k = 0; fs::exists(dir / (name + "_input" + std::to_string(k) + "_int16.csv")); ++k) {
      inputs.push_back(int16_csv(dir / (name + "_input" + std::to_string(k) + "_int16.csv")));
    }
    ++models;
    for (const char* cpu : kCpus) {
      pipeline::CompileOptions options;
      options.plan.cpu = cpu;
      try {
        const pipeline::Compiled compiled =
            pipeline::compile(tflite::read_model_file(model), options);
        const pipeline::HostRun run = pipeline::run_on_host(compiled.program, inputs);
        EXPECT_EQ(run.outputs.at(0), int16_csv(golden)) << model << " on " << cpu;
      } catch (const InputError& e) {
        ADD_FAILURE() << model << " on " << cpu << ": " << e.what();
      }
    }
  }
  std::printf("%d seanet models\n", models);
}

}  // namespace
}  // namespace mote
