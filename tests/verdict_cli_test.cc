// One supportedness verdict: `mote inspect`, `mote plan` and `mote compile` accept and refuse the
// same models, because every refusal is in the operator definitions' check (ops::validate, run on
// every model read) and lowering never refuses. Runs the `mote` executable on every model of the
// test suite (the builder's named models, the operator model, the field models, the
// SVDF and LSTM models with state, and the shared models when present) and on models each
// refused for a different reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "compiler/builder/model_builder.h"
#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"
#include "tests/operator_model.h"

namespace mote {
namespace {

namespace fs = std::filesystem;
using ::testing::StartsWith;

using Result = cli_testing::CliResult;

fs::path tmp(const std::string& name) { return fs::path(MOTE_TEST_TMP_DIR) / name; }

fs::path write(const std::string& name, const std::vector<uint8_t>& bytes) {
  fs::create_directories(MOTE_TEST_TMP_DIR);
  const fs::path p = tmp(name);
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  return p;
}

// Runs `mote ARGS` in a folder of the test case's own (ctest runs cases in parallel processes).
Result mote(const std::string& args) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  return cli_testing::run_mote(MOTE_CLI, args, tmp(std::string(test->name()) + ".run"),
                               ">/dev/null");
}

// The three commands' exit statuses and first error lines for one model file on one CPU.
struct Verdict {
  Result inspect, check, plan, compile;
};

Verdict verdict(const fs::path& file, const char* cpu) {
  std::string f = "'";  // appended piecewise: gcc 12 warns falsely on "'" + s + "'"
  f += file.string();
  f += '\'';
  const std::string target = std::string(" --target ") + cpu;
  Verdict v;
  v.inspect = mote("inspect " + f);
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  v.check = cli_testing::run_mote(MOTE_CLI, "inspect --check --json - " + f,
                                  tmp(std::string(test->name()) + ".check"));
  v.plan = mote("plan " + f + target);
  v.compile = mote("compile " + f + target + " -o out.mote");
  return v;
}

void expect_one_verdict(const fs::path& file, bool supported) {
  for (const char* cpu : {"cortex-m4", "cortex-m55"}) {
    const Verdict v = verdict(file, cpu);
    const int expected = supported ? 0 : 2;
    EXPECT_EQ(v.inspect.status, expected) << file << " inspect: " << v.inspect.err;
    EXPECT_EQ(v.check.status, expected) << file << " inspect --check: " << v.check.out;
    EXPECT_EQ(v.plan.status, expected) << file << " plan on " << cpu << ": " << v.plan.err;
    EXPECT_EQ(v.compile.status, expected) << file << " compile on " << cpu << ": " << v.compile.err;
    if (!supported) {  // and for the same reason, in the same words
      EXPECT_THAT(v.inspect.err, StartsWith("error: " + file.string() + ": "));
      EXPECT_EQ(v.plan.err, v.inspect.err) << file;
      EXPECT_EQ(v.compile.err, v.inspect.err) << file;
      // --check names that first problem among every operator's.
      const nlohmann::json report = nlohmann::json::parse(v.check.out);
      EXPECT_FALSE(report["compiles"].get<bool>());
      std::vector<std::string> problems = report["problems"].get<std::vector<std::string>>();
      for (const auto& op : report["operators"]) {
        if (!op["compiles"].get<bool>()) problems.push_back(op["problem"].get<std::string>());
      }
      bool named = false;
      for (const std::string& p : problems) named = named || v.inspect.err.find(p) != std::string::npos;
      EXPECT_TRUE(named) << file << ": " << v.inspect.err << " not among " << v.check.out;
    }
  }
}

// The field models (tests/field_test.cc checks their arithmetic).
std::vector<std::pair<std::string, ir::Graph>> field_models() {
  std::vector<std::pair<std::string, ir::Graph>> models;
  {
    builder::ModelBuilder b;
    const auto x = b.add_input({1, 7, 7, 64}, ir::DataType::kInt8, 0.0235f, -128);
    b.mark_output(b.add_mean(x, {1, 2}, false, 0.0117f, -128));
    models.emplace_back("mean_7x7", b.build());
  }
  {  // squeeze and excitation: MEAN, 1x1 convolutions, MUL broadcasting [1,1,1,C]
    builder::ModelBuilder b;
    const auto x = b.add_input({1, 6, 6, 16}, ir::DataType::kInt8, 0.05f, -10);
    auto s = b.add_mean(x, {1, 2}, true);
    s = b.add_conv2d(s, 4, 1, 1, 1, ir::Padding::kValid, ir::Activation::kRelu);
    s = b.add_conv2d(s, 16, 1, 1, 1, ir::Padding::kValid);
    s = b.add_logistic(s);
    const auto y = b.add_mul(x, s);
    const std::vector<int8_t> bias(16, 7);
    b.mark_output(b.add_add(y, b.add_int8_constant({16}, bias, 0.02f, 0)));
    models.emplace_back("squeeze_excite", b.build());
  }
  return models;
}

// Models with state (tests/stateful_test.cc runs them): SVDF, and UNIDIRECTIONAL_SEQUENCE_LSTM
// batch-major and time-major with a cell clip.
std::vector<std::pair<std::string, ir::Graph>> lstm_models() {
  std::vector<std::pair<std::string, ir::Graph>> models;
  {
    builder::ModelBuilder b(9);
    const auto x = b.add_input({1, 3, 10}, ir::DataType::kInt8, 0.04f, -5);
    b.mark_output(b.add_fully_connected(b.add_lstm(x, 12), 4));
    models.emplace_back("lstm_keyword", b.build());
  }
  {
    builder::ModelBuilder b(9);
    const auto x = b.add_input({3, 2, 10}, ir::DataType::kInt8, 0.03f, 7);
    b.mark_output(b.add_lstm(x, 8, /*time_major=*/true, /*cell_clip=*/0.75f, -11));
    models.emplace_back("lstm_time_major", b.build());
  }
  return models;
}

TEST(OneVerdict, EveryModelOfTheSuiteIsAcceptedByAllThree) {
  for (const auto& [name, graph] : builder::all_named_models()) {
    expect_one_verdict(write(name + ".tflite", builder::write_model(graph)), true);
  }
  expect_one_verdict(
      write("operator_model.tflite", builder::write_model(testing::operator_model())), true);
  for (const auto& [name, graph] : field_models()) {
    expect_one_verdict(write(name + ".tflite", builder::write_model(graph)), true);
  }
  {
    builder::ModelBuilder b(7);
    const auto x = b.add_input({1, 40}, ir::DataType::kInt8, 0.05f, 3);
    b.mark_output(b.add_fully_connected(b.add_svdf(b.add_svdf(x, 24, 1, 8), 12, 2, 4), 4));
    expect_one_verdict(write("svdf_keyword.tflite", builder::write_model(b.build())), true);
  }
  for (const auto& [name, graph] : lstm_models()) {
    expect_one_verdict(write(name + ".tflite", builder::write_model(graph)), true);
  }
}

TEST(OneVerdict, SharedModels) {
  const fs::path dir = fs::path(MOTE_SHARED_DIR) / "models";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no shared models at " << dir;
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".tflite") continue;
    expect_one_verdict(entry.path(), true);
    ++n;
  }
  EXPECT_GT(n, 0);
}

// Models each refused for another reason: by the reader (an operator Mote lacks) and by an
// operator's check for parameters its kernel cannot take (before lowering refused those, and
// inspect and plan accepted them).
TEST(OneVerdict, RefusedModelsAreRefusedByAllThreeForTheSameReason) {
  {
    auto model = builder::to_tflite_object(builder::conv2d_x3());
    auto& code = model->operator_codes[model->subgraphs[0]->operators[1]->opcode_index];
    code->builtin_code = code->deprecated_builtin_code = 52;  // BIDIRECTIONAL_SEQUENCE_LSTM
    expect_one_verdict(write("bidirectional_lstm.tflite", builder::pack_model(*model)), false);
  }
  {  // an LSTM with peephole weights (input 10, cell-to-forget), which the kernel does not run
    ir::Graph g = lstm_models()[0].second;
    g.operators[0].inputs[10] = g.operators[0].inputs[13];
    expect_one_verdict(write("lstm_peephole.tflite", builder::write_model(g)), false);
  }
  {  // an LSTM whose cell state scale is not a power of two
    ir::Graph g = lstm_models()[0].second;
    g.tensors[static_cast<size_t>(g.operators[0].inputs[19])].quantization.scale[0] *= 1.5f;
    expect_one_verdict(write("lstm_cell_scale.tflite", builder::write_model(g)), false);
  }
  {  // beta x input scale below 2^-27
    builder::ModelBuilder b;
    const auto x = b.add_input({1, 10}, ir::DataType::kInt8, 0.01f, 0);
    b.mark_output(b.add_softmax(x, 1e-7f));
    expect_one_verdict(write("softmax_tiny_beta.tflite", builder::write_model(b.graph())), false);
  }
  {  // an input scale of 16 overflows the logistic kernel's shifts
    builder::ModelBuilder b;
    const auto x = b.add_input({1, 10}, ir::DataType::kInt8, 16.0f, 0);
    b.mark_output(b.add_logistic(x));
    expect_one_verdict(write("logistic_scale16.tflite", builder::write_model(b.graph())), false);
  }
  {  // HARD_SWISH whose output scale is far below its input scale
    builder::ModelBuilder b;
    const auto x = b.add_input({1, 10}, ir::DataType::kInt8, 1.0f, 0);
    b.mark_output(b.add_operator(ir::OpType::kHardSwish, {x}, std::monostate{}, {1, 10}, 1e-4f, 0));
    expect_one_verdict(write("hard_swish_scales.tflite", builder::write_model(b.graph())), false);
  }
  {  // ADD of a constant whose output scale is far below the inputs' (the rescaled sum overflows)
    builder::ModelBuilder b;
    const auto x = b.add_input({1, 8}, ir::DataType::kInt8, 1.0f, 0);
    const auto k = b.add_int8_constant({8}, {1, 2, 3, 4, 5, 6, 7, 8}, 1.0f, 0);
    b.mark_output(
        b.add_operator(ir::OpType::kAdd, {x, k}, ir::ElementwiseOptions{}, {1, 8}, 1e-8f, 0));
    expect_one_verdict(write("add_scales.tflite", builder::write_model(b.graph())), false);
  }
  {  // MUL by a constant whose output scale is far below the product of the inputs'
    builder::ModelBuilder b;
    const auto x = b.add_input({1, 8}, ir::DataType::kInt8, 1.0f, 0);
    const auto k = b.add_int8_constant({8}, {1, 2, 3, 4, 5, 6, 7, 8}, 1.0f, 0);
    b.mark_output(
        b.add_operator(ir::OpType::kMul, {k, x}, ir::ElementwiseOptions{}, {1, 8}, 1e-6f, 0));
    expect_one_verdict(write("mul_scales.tflite", builder::write_model(b.graph())), false);
  }
  {  // a depthwise stride of 2^31 - 1 over a height of 1: valid TFLite, above the kernels' 256
    builder::ModelBuilder b(4);
    const auto x = b.add_input({1, 1, 12, 1}, ir::DataType::kInt8, 0.05f, 0);
    b.mark_output(b.add_depthwise(x, 1, 3, 1, ir::Padding::kValid, ir::Activation::kNone, 4));
    ir::Graph g = b.graph();
    std::get<ir::DepthwiseConv2DOptions>(g.operators[0].options).stride_h = INT32_MAX;
    expect_one_verdict(write("depthwise_stride.tflite", builder::write_model(g)), false);
  }
  {  // MEAN whose requantized sum overflows int32 (input scale 2^24 times the output's)
    builder::ModelBuilder b;
    const auto x = b.add_input({1, 8, 8, 4}, ir::DataType::kInt8, 1.0f, 0);
    b.mark_output(b.add_mean(x, {1, 2}, true, 1.0f / (1 << 24), 0));
    expect_one_verdict(write("mean_overflow.tflite", builder::write_model(b.graph())), false);
  }
}

}  // namespace
}  // namespace mote
