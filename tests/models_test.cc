// The shared MLPerf Tiny models (and TFLM's hello_world), compiled for each extension and run on
// the host, against TensorFlow Lite's reference kernels: the default input, the reference output,
// and every intermediate tensor so that a mismatch names the first layer that diverges.
// Runs only when shared/models exists (MOTE_SHARED_DIR), skips otherwise.

#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "compiler/tflite/reader.h"

namespace mote {
namespace {

namespace fs = std::filesystem;

fs::path models_dir() { return fs::path(MOTE_SHARED_DIR) / "models"; }

std::vector<uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> shared_models() {
  std::vector<std::string> names;
  if (!fs::is_directory(models_dir())) return names;
  for (const auto& entry : fs::directory_iterator(models_dir())) {
    if (entry.path().extension() == ".tflite") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class SharedModel : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam().empty()) GTEST_SKIP() << "no shared models at " << models_dir();
    graph_ = tflite::read_model_file(models_dir() / (GetParam() + ".tflite"));
    const fs::path expected = models_dir() / "expected";
    input_ = read_bytes(expected / (GetParam() + ".input.bin"));
    output_ = read_bytes(expected / (GetParam() + ".output.bin"));
    ASSERT_FALSE(input_.empty());
    ASSERT_FALSE(output_.empty());
  }

  ir::Graph graph_;
  std::vector<uint8_t> input_;
  std::vector<uint8_t> output_;
};

// The expected input is exactly Mote's default input.
TEST_P(SharedModel, ExpectedInputIsTheDefaultInput) {
  std::vector<uint8_t> generated(input_.size());
  pipeline::DefaultInput().fill(generated);
  EXPECT_EQ(generated, input_);
}

TEST_P(SharedModel, OutputEqualsTfLiteReferenceOnEveryExtension) {
  for (const char* cpu : {"cortex-m0plus", "cortex-m4", "cortex-m55"}) {
    SCOPED_TRACE(cpu);
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    const pipeline::Compiled compiled = pipeline::compile(graph_, options);
    const pipeline::HostRun run = pipeline::run_on_host(compiled.program, {input_});
    ASSERT_EQ(run.outputs.size(), 1u);
    EXPECT_EQ(run.outputs[0], output_);
    EXPECT_EQ(run.status.temp_allocator, 0u);
  }
}

// Without overlap (--no-overlap) the plan reaches the lower bound on every extension (or, where
// no plan can, is proven optimal); with overlap it is never larger, and the program it makes
// gives TFLite's output (OutputEqualsTfLiteReferenceOnEveryExtension).
TEST_P(SharedModel, AutoPlanReachesTheLowerBoundOnEveryExtension) {
  for (const char* cpu : {"cortex-m0plus", "cortex-m4", "cortex-m55"}) {
    pipeline::PlanRequest request;
    request.cpu = cpu;
    request.overlap = false;
    const pipeline::PlannedGraph planned = pipeline::plan_graph(graph_, request);
    const planner::Plan& plan = planned.plan();
    EXPECT_TRUE(plan.arena_bytes == planned.bound.bytes || plan.optimal)
        << cpu << ": arena " << plan.arena_bytes << ", lower bound " << planned.bound.bytes;
    request.overlap = true;
    const pipeline::PlannedGraph overlapped = pipeline::plan_graph(graph_, request);
    EXPECT_LE(overlapped.plan().arena_bytes, plan.arena_bytes) << cpu;
    EXPECT_GE(overlapped.plan().arena_bytes, overlapped.bound.bytes) << cpu;
  }
}

// `--algorithm exact` alone is never worse than auto (which the first one searched with no
// overlaps, unseeded, and lost to chain-fit on keyword spotting: 16,000 against 8,320).
TEST_P(SharedModel, ExactAloneIsNeverWorseThanAutoOnEveryExtension) {
  for (const char* cpu : {"cortex-m0plus", "cortex-m4", "cortex-m55"}) {
    pipeline::PlanRequest request;
    request.cpu = cpu;
    const uint64_t automatic = pipeline::plan_graph(graph_, request).plan().arena_bytes;
    request.algorithm = planner::Algorithm::kExact;
    EXPECT_LE(pipeline::plan_graph(graph_, request).plan().arena_bytes, automatic) << cpu;
  }
}

// The overlapped program runs on the host and equals TFLite, as does the one without overlap.
TEST_P(SharedModel, OutputEqualsTfLiteReferenceWithoutOverlap) {
  for (const char* cpu : {"cortex-m0plus", "cortex-m4"}) {
    SCOPED_TRACE(cpu);
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    options.plan.overlap = false;
    const pipeline::Compiled compiled = pipeline::compile(graph_, options);
    EXPECT_TRUE(compiled.planned.memory.problem.overlaps.empty());
    const pipeline::HostRun run = pipeline::run_on_host(compiled.program, {input_});
    ASSERT_EQ(run.outputs.size(), 1u);
    EXPECT_EQ(run.outputs[0], output_);
  }
}

// With the graph input outside the arena (--inputs-outside-arena) the program reads the
// caller's buffer in place and still gives TFLite's output; its arena is never larger than with
// the input inside. The arenas are recorded (ctest --output-junit, or --gtest_output=xml).
TEST_P(SharedModel, OutputEqualsTfLiteReferenceWithInputsOutsideTheArena) {
  for (const char* cpu : {"cortex-m4", "cortex-m55"}) {
    SCOPED_TRACE(cpu);
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    const uint64_t inside = pipeline::plan_graph(graph_, options.plan).plan().arena_bytes;
    options.plan.inputs_outside_arena = true;
    const pipeline::Compiled compiled = pipeline::compile(graph_, options);
    ASSERT_EQ(compiled.planned.memory.external_inputs, graph_.inputs);
    const uint64_t outside = compiled.planned.plan().arena_bytes;
    EXPECT_LE(outside, inside);
    const pipeline::HostRun run = pipeline::run_on_host(compiled.program, {input_});
    ASSERT_EQ(run.outputs.size(), 1u);
    EXPECT_EQ(run.outputs[0], output_);
    EXPECT_EQ(run.status.inputs_outside, input_.size());
    EXPECT_EQ(run.status.arena_planned, outside);
    RecordProperty(std::string(cpu) + "_arena_inside", std::to_string(inside));
    RecordProperty(std::string(cpu) + "_arena_outside", std::to_string(outside));
  }
}

// Every tensor of the reference run, compared in execution order: all intermediate tensors are
// made graph outputs (so the plan keeps them), and the first that differs is named.
TEST_P(SharedModel, EveryLayerEqualsTfLiteReference) {
  const fs::path dir = models_dir() / "expected" / GetParam();
  if (!fs::exists(dir / "index.json")) GTEST_SKIP() << "no intermediate tensors for " << GetParam();
  const nlohmann::json index = nlohmann::json::parse(std::ifstream(dir / "index.json"));

  ir::Graph graph = graph_;
  std::vector<const nlohmann::json*> layers;
  for (const nlohmann::json& t : index["tensors"]) {
    if (t["producer_op"].is_null()) continue;
    const int32_t tensor = t["index"].get<int32_t>();
    ASSERT_LT(static_cast<size_t>(tensor), graph.tensors.size());
    ASSERT_EQ(graph.tensors[static_cast<size_t>(tensor)].name, t["name"].get<std::string>());
    if (std::find(graph.outputs.begin(), graph.outputs.end(), tensor) == graph.outputs.end()) {
      graph.outputs.push_back(tensor);
    }
    layers.push_back(&t);
  }
  ASSERT_FALSE(layers.empty());
  std::sort(layers.begin(), layers.end(), [](const nlohmann::json* a, const nlohmann::json* b) {
    return (*a)["producer_op"].get<int>() < (*b)["producer_op"].get<int>();
  });

  pipeline::CompileOptions options;
  options.plan.algorithm = planner::Algorithm::kBestFit;  // a diagnostic build: any valid plan
  const pipeline::Compiled compiled = pipeline::compile(graph, options);
  const pipeline::HostRun run = pipeline::run_on_host(compiled.program, {input_});
  for (const nlohmann::json* layer : layers) {
    const int32_t tensor = (*layer)["index"].get<int32_t>();
    const size_t k = static_cast<size_t>(
        std::find(graph.outputs.begin(), graph.outputs.end(), tensor) - graph.outputs.begin());
    const std::vector<uint8_t> expected = read_bytes(dir / (*layer)["file"].get<std::string>());
    ASSERT_EQ(run.outputs.at(k), expected)
        << "first diverging layer: operator " << (*layer)["producer_op"] << " ("
        << (*layer)["producer_type"].get<std::string>() << "), tensor " << tensor;
  }
}

// A shared model with TensorFlow Lite's default input and output for it.
struct SharedCase {
  ir::Graph graph;
  std::vector<uint8_t> input, output;
};
SharedCase shared_case(const std::string& name) {
  const fs::path expected = models_dir() / "expected";
  return {tflite::read_model_file(models_dir() / (name + ".tflite")),
          read_bytes(expected / (name + ".input.bin")),
          read_bytes(expected / (name + ".output.bin"))};
}

// ResNet-8 with its residual branches run in the searched order needs at most 33,888
// bytes on cortex-m0plus and cortex-m4 (33,920 in the model's order, where the second stage's 1x1
// shortcut runs after both 3x3 convolutions and keeps the stage's 16 KiB input alive through
// them), and its output is still TFLite's.
TEST(SharedModelOrder, ImageClassificationNeedsLessInTheSearchedOrder) {
  const std::string name = "mlperf_tiny_ic_resnet8_int8";
  if (!fs::exists(models_dir() / (name + ".tflite"))) {
    GTEST_SKIP() << "no shared models at " << models_dir();
  }
  const auto [graph, input, output] = shared_case(name);
  for (const char* cpu : {"cortex-m0plus", "cortex-m4"}) {
    SCOPED_TRACE(cpu);
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    const pipeline::Compiled compiled = pipeline::compile(graph, options);
    const planner::OrderSummary& order = compiled.planned.order;
    EXPECT_EQ(order.kept, planner::OrderSummary::Kept::kSearched);
    EXPECT_TRUE(order.exhaustive);
    EXPECT_LE(compiled.planned.plan().arena_bytes, 33888u);
    EXPECT_LT(order.arena, order.model_arena);
    EXPECT_FALSE(order.model_order());
    const pipeline::HostRun run = pipeline::run_on_host(compiled.program, {input});
    ASSERT_EQ(run.outputs.size(), 1u);
    EXPECT_EQ(run.outputs[0], output);
  }
}

// The arenas (auto plan) on cortex-m0plus and cortex-m4, each program still TFLite's:
// overlap, in-place depthwise, backward pointwise runs (visual wake words' first 8 -> 16 one
// starts 16 bytes above its input) and the order search together.
TEST(SharedModelArena, BelowTheActivationPeakAndStillTfLites) {
  const struct {
    const char* name;
    uint64_t most;
  } targets[] = {{"mlperf_tiny_kws_dscnn_int8", 8320},
                 {"mlperf_tiny_vww_mobilenetv1_025_96_int8", 36880},
                 {"mlperf_tiny_ic_resnet8_int8", 33888},
                 {"mlperf_tiny_ad_fc_autoencoder_int8", 768}};
  for (const auto& target : targets) {
    const std::string name = target.name;
    if (!fs::exists(models_dir() / (name + ".tflite"))) {
      GTEST_SKIP() << "no shared models at " << models_dir();
    }
    const auto [graph, input, output] = shared_case(name);
    for (const char* cpu : {"cortex-m0plus", "cortex-m4"}) {
      SCOPED_TRACE(name + " on " + cpu);
      pipeline::CompileOptions options;
      options.plan.cpu = cpu;
      const pipeline::Compiled compiled = pipeline::compile(graph, options);
      EXPECT_LE(compiled.planned.plan().arena_bytes, target.most);
      const pipeline::HostRun run = pipeline::run_on_host(compiled.program, {input});
      ASSERT_EQ(run.outputs.size(), 1u);
      EXPECT_EQ(run.outputs[0], output);
    }
  }
}

// The shared models compiled with row-streamed stages (PlanRequest::stream) on each
// CPU, their outputs still TFLite's, the arenas within the targets set for them on cortex-m0plus and
// cortex-m4 (visual wake words 32,000, 14,500 with its input outside the arena; image
// classification 17,500; keyword spotting 6,500, its global average pool streamed).
TEST(SharedModelStreaming, StagesShrinkTheArenaAndKeepTfLitesOutputs) {
  const struct {
    const char* name;
    uint64_t arena, arena_m55;  // the streamed plans
    uint64_t outside_arena;     // with the input outside the arena (m0plus, m4)
    size_t stages, stages_m55;  // ResNet-8: a second stage where its peak moves
  } expected[] = {{"mlperf_tiny_vww_mobilenetv1_025_96_int8", 27856, 27856, 14320, 1, 1},
                  {"mlperf_tiny_ic_resnet8_int8", 17024, 17024, 14912, 2, 2},
                  {"mlperf_tiny_kws_dscnn_int8", 6352, 6400, 5920, 1, 1}};
  for (const auto& e : expected) {
    const std::string name = e.name;
    if (!fs::exists(models_dir() / (name + ".tflite"))) {
      GTEST_SKIP() << "no shared models at " << models_dir();
    }
    const auto [graph, input, output] = shared_case(name);
    for (const char* cpu : {"cortex-m0plus", "cortex-m4", "cortex-m55"}) {
      SCOPED_TRACE(name + " on " + cpu);
      const bool helium = std::string(cpu) == "cortex-m55";
      pipeline::CompileOptions options;
      options.plan.cpu = cpu;
      options.plan.stream = true;
      const pipeline::Compiled compiled = pipeline::compile(graph, options);
      ASSERT_EQ(compiled.planned.stages.size(), helium ? e.stages_m55 : e.stages);
      EXPECT_EQ(compiled.planned.plan().arena_bytes, helium ? e.arena_m55 : e.arena);
      const pipeline::HostRun run = pipeline::run_on_host(compiled.program, {input});
      ASSERT_EQ(run.outputs.size(), 1u);
      EXPECT_EQ(run.outputs[0], output);
      if (helium) continue;
      options.plan.inputs_outside_arena = true;
      const pipeline::Compiled outside = pipeline::compile(graph, options);
      EXPECT_EQ(outside.planned.plan().arena_bytes, e.outside_arena);
      EXPECT_EQ(pipeline::run_on_host(outside.program, {input}).outputs.at(0), output);
    }
  }
}

std::vector<std::string> params() {
  std::vector<std::string> names = shared_models();
  if (names.empty()) names.push_back("");  // one skipped case says why
  return names;
}

INSTANTIATE_TEST_SUITE_P(Models, SharedModel, testing::ValuesIn(params()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param.empty() ? std::string("none") : info.param;
                         });

}  // namespace
}  // namespace mote
