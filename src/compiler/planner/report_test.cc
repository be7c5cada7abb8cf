// Text, JSON and SVG reports.
#include "compiler/planner/report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/planner/random_problems.h"

namespace mote::planner {
namespace {

using ::testing::HasSubstr;

// input -> op0 (scratch) -> mid -> op1 (scratch) -> output
Problem small_model() {
  Problem p;
  p.num_steps = 2;
  p.buffers = {buffer("input", 64, 0, 0, BufferKind::kInput),
               buffer("op0/scratch", 32, 0, 0, BufferKind::kScratch),
               buffer("mid", 48, 0, 1, BufferKind::kActivation),
               buffer("op1/scratch<b>", 96, 1, 1, BufferKind::kScratch),
               buffer("output", 16, 1, 1, BufferKind::kOutput)};
  return p;
}

Plan hand_plan() {
  // Step 0: input [0, 64), scratch [64, 96), mid [96, 144). Step 1: mid, output [0, 16),
  // scratch [144, 240).
  Plan plan;
  plan.offsets = {0, 64, 96, 144, 0};
  plan.arena_bytes = 240;
  plan.algorithm = "by-hand";
  plan.chosen = "by-hand";
  return plan;
}

TEST(ReportTest, FiguresSplitTheArenaAndFindThePeak) {
  const Problem p = small_model();
  const LowerBound bound = lower_bound(p);
  EXPECT_EQ(bound.bytes, 160u);  // step 1: 48 + 96 + 16
  const PlanFigures f = plan_figures(p, bound, hand_plan());
  EXPECT_EQ(f.activation_bytes, 144u);  // mid ends at 144
  EXPECT_EQ(f.scratch_bytes, 96u);
  EXPECT_DOUBLE_EQ(f.gap_percent, 50.0);
  EXPECT_EQ(f.peak_step, 1);
  EXPECT_EQ(f.peak_live, (std::vector<size_t>{4, 2, 3}));  // by offset
}

TEST(ReportTest, JsonForACsvProblem) {
  const Problem p = small_model();
  const LowerBound bound = lower_bound(p);
  const std::vector<Plan> plans = plan_with_details(p, Algorithm::kAuto);
  const nlohmann::json j = json_report(p, bound, plans, {"model.csv", std::nullopt, std::nullopt});
  EXPECT_TRUE(j.at("target").is_null());
  EXPECT_TRUE(j.at("extension").is_null());
  EXPECT_EQ(j.at("lower_bound_bytes"), 160);
  ASSERT_EQ(j.at("results").size(), 5u);
  const nlohmann::json& first = j.at("results")[0];
  EXPECT_EQ(first.at("algorithm"), "auto");
  EXPECT_EQ(first.at("arena_bytes"), 160);
  EXPECT_EQ(first.at("optimal"), true);
  EXPECT_EQ(first.at("activation_bytes").get<uint64_t>() + first.at("scratch_bytes").get<uint64_t>(), 160u);
  EXPECT_TRUE(first.at("milliseconds").is_number());
  EXPECT_EQ(j.at("plan").at("buffers").size(), 5u);
  EXPECT_EQ(j.at("plan").at("buffers")[3].at("name"), "op1/scratch<b>");
}

TEST(ReportTest, JsonNamesTargetAndExtension) {
  const Problem p = small_model();
  const nlohmann::json j = json_report(p, lower_bound(p), {hand_plan()},
                                       {"model.tflite", "cortex-m55", kernels::Extension::kMve});
  EXPECT_EQ(j.at("target"), "cortex-m55");
  EXPECT_EQ(j.at("extension"), "mve");
  EXPECT_EQ(j.at("results")[0].at("gap_percent"), 50.0);
  EXPECT_EQ(j.at("results")[0].at("peak_live"), (nlohmann::json{"output", "mid", "op1/scratch<b>"}));
}

TEST(ReportTest, TextHasOneRowPerPlanAndThePeaks) {
  const Problem p = small_model();
  const std::string text = text_report(p, lower_bound(p), {hand_plan()}, {"model.csv", std::nullopt, std::nullopt});
  EXPECT_THAT(text, HasSubstr("plan: model.csv (5 buffers, 2 steps, alignment 16)"));
  EXPECT_THAT(text, HasSubstr("lower bound: 160 bytes (step 1: 160 bytes live in 3 buffers: mid, op1/scratch<b>, output)"));
  EXPECT_THAT(text, HasSubstr("by-hand"));
  EXPECT_THAT(text, HasSubstr("50.00%"));
  EXPECT_THAT(text, HasSubstr("step 1: output @0+16, mid @96+48, op1/scratch<b> @144+96"));
}

TEST(ReportTest, CountsTakeTheSingularForOne) {
  EXPECT_EQ(counted(1, "step"), "1 step");
  EXPECT_EQ(counted(0, "step"), "0 steps");
  EXPECT_EQ(counted(1234, "buffer"), "1,234 buffers");
  Problem one;
  one.num_steps = 1;
  one.buffers = {buffer("only", 64, 0, 0)};
  const std::string text = text_report(one, lower_bound(one), {planner::plan(one, Algorithm::kNaive)},
                                       {"one.csv", std::nullopt, std::nullopt});
  EXPECT_THAT(text, HasSubstr("plan: one.csv (1 buffer, 1 step, alignment 16)"));
  EXPECT_THAT(text, HasSubstr("live in 1 buffer: only)"));
}

TEST(ReportTest, SvgDrawsEveryBufferAndEscapesNames) {
  const Problem p = small_model();
  const std::string svg = svg_report(p, lower_bound(p), hand_plan(), {"model.csv", std::nullopt, std::nullopt});
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_THAT(svg, HasSubstr("</svg>"));
  for (const char* name : {"input (input)", "op0/scratch (scratch)", "mid (activation)",
                           "op1/scratch&lt;b&gt; (scratch)", "output (output)"}) {
    EXPECT_THAT(svg, HasSubstr(std::string("<title>") + name)) << name;
  }
  EXPECT_EQ(svg.find("scratch<b>"), std::string::npos);
  EXPECT_THAT(svg, HasSubstr("arena 240 B, lower bound 160 B (+50.00%)"));
  EXPECT_THAT(svg, HasSubstr("peak (step 1)"));
}

TEST(ReportTest, SvgShadesTheStepTheLowerBoundNames) {
  // Live bytes peak at step 0 (the bound), while the plan's top byte is first used at step 1.
  Problem p;
  p.num_steps = 2;
  p.buffers = {buffer("a", 64, 0, 0, BufferKind::kInput),
               buffer("b", 64, 0, 1, BufferKind::kActivation),
               buffer("c", 32, 1, 1, BufferKind::kOutput)};
  const LowerBound bound = lower_bound(p);
  ASSERT_EQ(bound.step, 0);
  Plan plan;
  plan.algorithm = plan.chosen = "hand";
  plan.offsets = {0, 64, 128};  // c above both: the top byte belongs to step 1
  plan.arena_bytes = 160;
  ASSERT_EQ(plan_figures(p, bound, plan).peak_step, 1);
  const std::string svg = svg_report(p, bound, plan, {});
  EXPECT_THAT(svg, HasSubstr("peak (step 0)"));
  EXPECT_EQ(svg.find("peak (step 1)"), std::string::npos);
  EXPECT_THAT(svg, HasSubstr("<title>step 0: 128 bytes live in 2 buffers, the lower bound</title>"));
  EXPECT_THAT(text_report(p, bound, {plan}, {}), HasSubstr("lower bound: 128 bytes (step 0:"));
}

TEST(ReportTest, SvgTicksAreRoundAndTinyBuffersStayVisible) {
  EXPECT_EQ(round_tick(20464, 6), 5000u);
  EXPECT_EQ(round_tick(9, 6), 2u);
  EXPECT_EQ(round_tick(100, 6), 20u);
  EXPECT_EQ(round_tick(55296, 6), 10000u);
  Problem p;
  p.num_steps = 1;
  p.buffers = {buffer("big", 20460, 0, 0, BufferKind::kInput),
               buffer("tiny/and/a/long;name", 4, 0, 0, BufferKind::kScratch)};
  Plan plan;
  plan.algorithm = plan.chosen = "hand";
  plan.offsets = {0, 20460};
  plan.arena_bytes = 20464;
  const std::string svg = svg_report(p, lower_bound(p), plan, {});
  for (const char* tick : {">0<", ">5,000<", ">10,000<", ">15,000<", ">20,000<"}) {
    EXPECT_THAT(svg, HasSubstr(tick)) << tick;
  }
  EXPECT_EQ(svg.find(">4,092<"), std::string::npos);
  // The 4-byte buffer is 0.1 px tall at this scale; it is drawn 2 px high, named in full.
  EXPECT_THAT(svg, HasSubstr("height=\"2.00\" fill=\"#f28e2b\""));
  EXPECT_THAT(svg, HasSubstr("<title>tiny/and/a/long;name (scratch): 4 B"));
}

TEST(ReportTest, TextShortensLongNamesAndJsonKeepsThem) {
  const std::string name =
      "functional_1/conv2d_3/BiasAdd;functional_1/conv2d_3/Conv2D;functional_1/conv2d_3/bias";
  EXPECT_EQ(short_buffer_name(name, 32), "...conv2d_3/BiasAdd");
  EXPECT_EQ(short_buffer_name("short", 32), "short");
  EXPECT_EQ(short_buffer_name(std::string(40, 'x'), 10), "xxxxxxx...");
  Problem p;
  p.num_steps = 1;
  p.buffers = {buffer(name, 64, 0, 0, BufferKind::kInput)};
  const LowerBound bound = lower_bound(p);
  Plan plan;
  plan.algorithm = plan.chosen = "hand";
  plan.offsets = {0};
  plan.arena_bytes = 64;
  const std::string text = text_report(p, bound, {plan}, {});
  EXPECT_EQ(text.find(name), std::string::npos) << text;
  EXPECT_THAT(text, HasSubstr("in 1 buffer: ...conv2d_3/BiasAdd)"));
  EXPECT_EQ(json_report(p, bound, {plan}, {}).at("lower_bound_live")[0], name);
  // The tooltip has the whole name.
  EXPECT_THAT(svg_report(p, bound, plan, {}), HasSubstr("<title>" + name + " (input)"));
}

// Shared bytes of a declared overlap are hatched at the step where they meet, with a tooltip
// saying which way the operator runs.
TEST(ReportTest, SvgHatchesTheBytesAnOverlapShares) {
  Problem p;
  p.num_steps = 2;
  p.buffers = {buffer("in", 1024, 0, 1), buffer("out", 1024, 1, 1)};
  p.overlaps = {{1, 0, 127, 384}};
  Plan plan;
  plan.algorithm = plan.chosen = "hand";
  plan.offsets = {0, 384};
  plan.arena_bytes = 1408;
  std::string svg = svg_report(p, lower_bound(p), plan, {});
  EXPECT_THAT(svg, HasSubstr("fill=\"url(#shared)\""));
  EXPECT_THAT(svg, HasSubstr("<title>out over its dying input in: 640 B shared, run backward"));
  plan.offsets = {128, 0};
  plan.arena_bytes = 1152;
  svg = svg_report(p, lower_bound(p), plan, {});
  EXPECT_THAT(svg, HasSubstr("<title>out over its dying input in: 896 B shared, run forward"));
  plan.offsets = {0, 1024};
  plan.arena_bytes = 2048;
  EXPECT_EQ(svg_report(p, lower_bound(p), plan, {}).find("url(#shared)"), std::string::npos);
}

}  // namespace
}  // namespace mote::planner
