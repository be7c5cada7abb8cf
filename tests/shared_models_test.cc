// The real models in shared/models: every one reads and validates, its tensors and operators
// match the reference run's index (models/expected/<model>/index.json), and the builder's
// look-alike models have the same layers. Skipped when shared/ is absent.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"
#include "compiler/ir/stats.h"
#include "compiler/ops/op_def.h"
#include "compiler/tflite/reader.h"

namespace mote {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path models_dir() { return fs::path(MOTE_SHARED_DIR) / "models"; }

#define SKIP_WITHOUT_SHARED_MODELS()                                                      \
  if (!fs::exists(models_dir())) GTEST_SKIP() << models_dir() << " not found"

std::string upper(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}

TEST(SharedModels, EveryModelReadsAndMatchesTheReferenceIndex) {
  SKIP_WITHOUT_SHARED_MODELS();
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(models_dir())) {
    if (entry.path().extension() != ".tflite") continue;
    SCOPED_TRACE(entry.path().string());
    const ir::Graph g = tflite::read_model_file(entry.path());
    // Written back by Mote's writer, the model reads the same.
    EXPECT_EQ(tflite::read_model(builder::write_model(g)), g);

    const fs::path index = models_dir() / "expected" / entry.path().stem() / "index.json";
    if (!fs::exists(index)) continue;
    const json j = json::parse(std::ifstream(index));
    EXPECT_EQ(j["inputs"].get<std::vector<int32_t>>(), g.inputs);
    EXPECT_EQ(j["outputs"].get<std::vector<int32_t>>(), g.outputs);
    for (const json& t : j["tensors"]) {
      const ir::Tensor& mine = g.tensors.at(t["index"].get<size_t>());
      SCOPED_TRACE(mine.name);
      EXPECT_EQ(t["name"].get<std::string>(), mine.name);
      EXPECT_EQ(t["type"].get<std::string>(), upper(ir::to_string(mine.type)));
      EXPECT_EQ(t["shape"].get<std::vector<int32_t>>(), mine.shape);
      EXPECT_EQ(t["bytes"].get<int64_t>(), mine.num_bytes());
      ASSERT_FALSE(mine.quantization.empty());
      EXPECT_NEAR(t["scale"].get<double>(), mine.quantization.scale[0],
                  1e-6 * mine.quantization.scale[0]);
      EXPECT_EQ(t["zero_point"].get<int64_t>(), mine.quantization.zero_point[0]);
    }
    const json& ops = j["operators"];
    ASSERT_EQ(ops.size(), g.operators.size());
    for (size_t i = 0; i < g.operators.size(); ++i) {
      EXPECT_EQ(ops[i]["type"].get<std::string>(), ir::to_string(g.operators[i].type));
      EXPECT_EQ(ops[i]["inputs"].get<std::vector<int32_t>>(), g.operators[i].inputs);
      EXPECT_EQ(ops[i]["outputs"].get<std::vector<int32_t>>(), g.operators[i].outputs);
    }
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

// Same operators, options, tensor shapes and types, in the same order; weights differ.
void expect_same_layers(const ir::Graph& like, const std::string& model) {
  SCOPED_TRACE(model);
  const fs::path file = models_dir() / (model + ".tflite");
  ASSERT_TRUE(fs::exists(file));
  const ir::Graph real = tflite::read_model_file(file);
  ASSERT_EQ(like.operators.size(), real.operators.size());
  auto shape_of = [](const ir::Graph& g, int32_t t) {
    return t == ir::kNoTensor ? std::vector<int32_t>{} : g.tensors[t].shape;
  };
  for (size_t i = 0; i < real.operators.size(); ++i) {
    SCOPED_TRACE("operator " + std::to_string(i));
    const ir::Operator& a = like.operators[i];
    const ir::Operator& b = real.operators[i];
    EXPECT_EQ(a.type, b.type);
    EXPECT_EQ(a.options, b.options);
    ASSERT_EQ(a.inputs.size(), b.inputs.size());
    for (size_t k = 0; k < a.inputs.size(); ++k) {
      EXPECT_EQ(shape_of(like, a.inputs[k]), shape_of(real, b.inputs[k])) << "input " << k;
      if (a.inputs[k] != ir::kNoTensor) {
        EXPECT_EQ(like.tensors[a.inputs[k]].type, real.tensors[b.inputs[k]].type);
        EXPECT_EQ(like.tensors[a.inputs[k]].quantization.scale.size(),
                  real.tensors[b.inputs[k]].quantization.scale.size());
      }
    }
    EXPECT_EQ(shape_of(like, a.outputs[0]), shape_of(real, b.outputs[0]));
  }
  EXPECT_EQ(ops::total_macs(like), ops::total_macs(real));
  EXPECT_EQ(ir::constant_bytes(like), ir::constant_bytes(real));
}

TEST(SharedModels, BuilderModelsHaveTheLayersOfTheMlperfTinyModels) {
  SKIP_WITHOUT_SHARED_MODELS();
  expect_same_layers(builder::kws_dscnn_like(), "mlperf_tiny_kws_dscnn_int8");
  expect_same_layers(builder::vww_mobilenet_like(), "mlperf_tiny_vww_mobilenetv1_025_96_int8");
  expect_same_layers(builder::resnet8_like(), "mlperf_tiny_ic_resnet8_int8");
  expect_same_layers(builder::ad_autoencoder_like(), "mlperf_tiny_ad_fc_autoencoder_int8");
}

}  // namespace
}  // namespace mote
