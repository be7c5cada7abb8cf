// `mote plan` end to end: runs the built binary on small CSV files.
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"
#include "compiler/ops/op_def.h"

namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

struct CommandResult {
  int exit_code;
  std::string out;  // stdout and stderr
};

class PlanCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("mote_plan_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

  static std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  static CommandResult mote(const std::string& args, bool merge_stderr = true) {
    const std::string command = std::string(MOTE_BINARY) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null");
    FILE* pipe = popen(command.c_str(), "r");
    CommandResult run{-1, ""};
    if (pipe == nullptr) return run;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) run.out.append(buffer, n);
    const int status = pclose(pipe);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
  }

  // The builder's conv2d_x3 as a .tflite file, and the graph it was written from.
  std::string write_conv2d_x3() {
    const std::vector<uint8_t> bytes = mote::builder::write_model(mote::builder::conv2d_x3());
    const fs::path path = dir_ / "conv2d_x3.tflite";
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return path.string();
  }

  fs::path dir_;
};

// The per-operator kernel list of a report, against the operator definitions and the plan.
void expect_kernels_of_conv2d_x3(const nlohmann::json& report, mote::kernels::Extension extension) {
  const mote::ir::Graph graph = mote::builder::conv2d_x3();
  const nlohmann::json& ops = report.at("operators");
  ASSERT_EQ(ops.size(), graph.operators.size()) << report.dump();
  std::map<std::string, uint64_t> scratch_buffers;
  for (const nlohmann::json& b : report.at("plan").at("buffers")) {
    if (b.at("kind") == "scratch") scratch_buffers[b.at("name")] = b.at("size");
  }
  int convs = 0;
  for (size_t i = 0; i < graph.operators.size(); ++i) {
    const mote::ir::Operator& op = graph.operators[i];
    const nlohmann::json& k = ops[i];
    EXPECT_EQ(k.at("index"), i);
    EXPECT_EQ(k.at("operator"), mote::ir::to_string(op.type));
    EXPECT_EQ(k.at("kernel_variant"), mote::ops::operator_kernel_variant(graph, op, extension));
    EXPECT_EQ(k.at("scratch_bytes"), mote::ops::operator_scratch_bytes(graph, op, extension));
    // What the report says is what the plan holds.
    const std::string name = "scratch of operator " + std::to_string(i) + " (" +
                             std::string(mote::ir::to_string(op.type)) + ")";
    const uint64_t planned = scratch_buffers.count(name) != 0 ? scratch_buffers[name] : 0;
    EXPECT_EQ(k.at("scratch_bytes").get<uint64_t>(), planned) << name;
    if (op.type == mote::ir::OpType::kConv2D) {
      ++convs;
      EXPECT_GT(planned, 0u);
    }
  }
  EXPECT_EQ(convs, 3);
}

// A chain of ten convolutions, TFLM-numbered with two tensors swapped (see planner_test.cc).
std::string chain_csv() {
  std::string csv = "id,lower,upper,size,kind\ninput,0,1,1024,input\n";
  const int order[] = {2, 1, 3, 4, 5, 6, 7, 8, 9};
  for (int k : order) {
    csv += "conv" + std::to_string(k - 1) + "/out," + std::to_string(k - 1) + "," +
           std::to_string(k + 1) + ",1024,activation\n";
  }
  csv += "output,9,10,1024,output\n";
  for (int k = 0; k < 10; ++k) {
    csv += "conv" + std::to_string(k) + "/scratch," + std::to_string(k) + "," + std::to_string(k + 1) + ",1024,scratch\n";
  }
  return csv;
}

TEST_F(PlanCommandTest, PrintsEveryAlgorithmAgainstTheBound) {
  const CommandResult run = mote("plan --problem " + write("chain.csv", chain_csv()));
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("lower bound: 3,072 bytes"));
  EXPECT_THAT(run.out, ContainsRegex("first-fit +first-fit +4,096 +33.33%"));
  EXPECT_THAT(run.out, ContainsRegex("auto +exact +3,072 +0.00%.*optimal"));
  EXPECT_THAT(run.out, HasSubstr("peak step of each plan"));
}

TEST_F(PlanCommandTest, JsonOnStdout) {
  const CommandResult run = mote("plan --problem " + write("chain.csv", chain_csv()) + " --json -", false);
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_TRUE(j.at("target").is_null());
  EXPECT_TRUE(j.at("extension").is_null());
  EXPECT_EQ(j.at("lower_bound_bytes"), 3072);
  EXPECT_EQ(j.at("results")[0].at("algorithm"), "auto");
  EXPECT_EQ(j.at("results")[0].at("arena_bytes"), 3072);
  EXPECT_EQ(j.at("results")[0].at("optimal"), true);
}

TEST_F(PlanCommandTest, WritesSvgJsonAndAPlannedCsv) {
  const std::string problem = write("chain.csv", chain_csv());
  const std::string svg = (dir_ / "plan.svg").string();
  const std::string json = (dir_ / "plan.json").string();
  const std::string planned = (dir_ / "planned.csv").string();
  const CommandResult run = mote("plan --problem " + problem + " --algorithm first-fit --svg " + svg + " --json " +
                       json + " --write-csv " + planned);
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_EQ(read(svg).rfind("<svg", 0), 0u);
  EXPECT_EQ(nlohmann::json::parse(read(json)).at("results")[0].at("arena_bytes"), 4096);
  // The planned CSV pins every buffer: planning it again keeps the same arena.
  const CommandResult again = mote("plan --problem " + planned + " --json -", false);
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_EQ(nlohmann::json::parse(again.out).at("results")[0].at("arena_bytes"), 4096);
}

TEST_F(PlanCommandTest, BadInputExitsWithTwoAndSaysWhere) {
  const std::string bad = write("bad.csv", "id,lower,upper,size\na,0,1,16\nb,0,one,16\n");
  CommandResult run = mote("plan --problem " + bad);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.out, HasSubstr("error: " + bad + ":3: upper 'one' is not a non-negative integer"));

  run = mote("plan --problem " + (dir_ / "missing.csv").string());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.out, HasSubstr("cannot read"));

  run = mote("plan --problem " + write("ok.csv", chain_csv()) + " --align 24");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.out, HasSubstr("--align: 24 is not a power of two in [16, 4096]"));

  run = mote("plan --problem " + write("ok2.csv", chain_csv()) + " --algorithm fastest");
  EXPECT_EQ(run.exit_code, 2);
}

// `mote plan` says which kernel variant each operator gets and the scratch planned for it (the
// float input kept, so that every operator of the model is in the program).
TEST_F(PlanCommandTest, ReportsTheKernelVariantOfEachOperator) {
  const std::string model = write_conv2d_x3() + " --float-inputs float";
  using mote::kernels::Extension;
  const std::pair<const char*, Extension> targets[] = {
      {"cortex-m0plus", Extension::kScalar}, {"cortex-m4", Extension::kDsp}, {"cortex-m55", Extension::kMve}};
  for (const auto& [cpu, extension] : targets) {
    const CommandResult json = mote("plan " + model + " --target " + cpu + " --json -", false);
    ASSERT_EQ(json.exit_code, 0) << json.out;
    expect_kernels_of_conv2d_x3(nlohmann::json::parse(json.out), extension);

    const CommandResult text = mote("plan " + model + " --target " + cpu);
    ASSERT_EQ(text.exit_code, 0) << text.out;
    EXPECT_THAT(text.out, HasSubstr("kernel of each operator (variant, scratch planned):"));
    const mote::ir::Graph graph = mote::builder::conv2d_x3();
    EXPECT_THAT(text.out,
                ContainsRegex(std::string(" 1  CONV_2D +") +
                              mote::ops::operator_kernel_variant(graph, graph.operators[1], extension) +
                              " +[0-9,]+"));
  }
}

// So does the compile report: the JSON lists them, the summary counts them.
TEST_F(PlanCommandTest, CompileReportsKernelVariants) {
  const std::string model = write_conv2d_x3() + " --float-inputs float";  // every operator kept
  const std::string report = (dir_ / "report.json").string();
  const CommandResult run = mote("compile " + model + " --target cortex-m55 -o " +
                                 (dir_ / "out.mote").string() + " --json " + report);
  ASSERT_EQ(run.exit_code, 0) << run.out;
  expect_kernels_of_conv2d_x3(nlohmann::json::parse(read(report)), mote::kernels::Extension::kMve);
  // "portable 5": the operators per variant, in order of first use.
  const mote::ir::Graph graph = mote::builder::conv2d_x3();
  std::vector<std::pair<std::string, int>> counts;
  for (const mote::ir::Operator& op : graph.operators) {
    const std::string v = mote::ops::operator_kernel_variant(graph, op, mote::kernels::Extension::kMve);
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == v; });
    if (it == counts.end()) it = counts.insert(counts.end(), {v, 0});
    ++it->second;
  }
  std::string expected;
  for (const auto& [v, n] : counts) expected += (expected.empty() ? "" : ", ") + v + " " + std::to_string(n);
  EXPECT_THAT(run.out, HasSubstr("  kernels: " + expected + "\n"));
}

// The operator order: `mote plan` and `mote compile` say what the search saved on a branched
// model, which model operator runs at each step, and `--order=model` keeps the model's order.
TEST_F(PlanCommandTest, ReportsWhatTheOperatorOrderSaved) {
  const mote::ir::Graph graph = mote::builder::interleaved_branches();
  const std::vector<uint8_t> bytes = mote::builder::write_model(graph);
  const std::string model = (dir_ / "branches.tflite").string();
  std::ofstream(model, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));

  // --optimize time: the order's figures are plans of whole maps, and a stage the default
  // preset may take (its cost measured per CPU) would make the plan's arena another figure.
  const CommandResult text = mote("plan " + model + " --target cortex-m4 --optimize time");
  ASSERT_EQ(text.exit_code, 0) << text.out;
  EXPECT_THAT(text.out, ContainsRegex("operator order: searched 6 orders \\(all\\), saved [0-9,]+ "
                                      "bytes \\([0-9,]+ -> [0-9,]+\\)"));
  EXPECT_THAT(text.out, HasSubstr("the model's operator index"));

  const CommandResult json =
      mote("plan " + model + " --target cortex-m4 --optimize time --json -", false);
  ASSERT_EQ(json.exit_code, 0) << json.out;
  const nlohmann::json report = nlohmann::json::parse(json.out);
  const nlohmann::json& order = report.at("operator_order");
  EXPECT_EQ(order.at("kept"), "searched");
  EXPECT_EQ(order.at("orders"), 6);
  EXPECT_GT(order.at("saved_bytes").get<uint64_t>(), 0u);
  EXPECT_EQ(order.at("arena_bytes"), report.at("results")[0].at("arena_bytes"));
  EXPECT_EQ(order.at("model_arena_bytes").get<uint64_t>() - order.at("saved_bytes").get<uint64_t>(),
            order.at("arena_bytes").get<uint64_t>());
  std::vector<int32_t> steps = order.at("order").get<std::vector<int32_t>>();
  ASSERT_EQ(steps.size(), graph.operators.size());
  EXPECT_NE(steps, (std::vector<int32_t>{0, 1, 2, 3, 4}));
  std::sort(steps.begin(), steps.end());
  EXPECT_EQ(steps, (std::vector<int32_t>{0, 1, 2, 3, 4}));

  const CommandResult kept =
      mote("plan " + model + " --target cortex-m4 --optimize time --order=model --json -", false);
  ASSERT_EQ(kept.exit_code, 0) << kept.out;
  const nlohmann::json kept_report = nlohmann::json::parse(kept.out);
  EXPECT_EQ(kept_report.at("operator_order").at("kept"), "model");
  EXPECT_EQ(kept_report.at("results")[0].at("arena_bytes"), order.at("model_arena_bytes"));

  const CommandResult compiled = mote("compile " + model + " --target cortex-m4 -o " +
                                      (dir_ / "branches.mote").string());
  ASSERT_EQ(compiled.exit_code, 0) << compiled.out;
  EXPECT_THAT(compiled.out, HasSubstr("  operator order: searched 6 orders (all), saved "));

  EXPECT_EQ(mote("plan " + model + " --order=best").exit_code, 2);
  EXPECT_THAT(mote("plan --help").out, HasSubstr("--order"));
}

}  // namespace

namespace {

// --float-inputs: conv2d_x3's float32 input (768 bytes) held quantized by default (192 bytes),
// said by plan and compile; `float` keeps it; mote run takes the same float bytes either way and
// gives the same outputs.
TEST_F(PlanCommandTest, FloatInputsAreHeldQuantizedUnlessAsked) {
  for (const char* command : {"plan", "compile"}) {
    const CommandResult help = mote(std::string(command) + " --help");
    EXPECT_THAT(help.out, HasSubstr("--float-inputs")) << command;
    EXPECT_THAT(help.out, HasSubstr("mote_write_input_float")) << command;
  }
  const std::string model = write_conv2d_x3();
  CommandResult run = mote("plan " + model + " --target cortex-m4");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("float inputs held quantized: input 0 (") );
  EXPECT_THAT(run.out, HasSubstr(" as int8, 192 bytes in the arena (768 as float32)"));
  run = mote("plan " + model + " --target cortex-m4 --float-inputs float");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out, Not(HasSubstr("float inputs held quantized")));
  EXPECT_EQ(mote("plan " + model + " --float-inputs int8").exit_code, 2);

  const std::string held = (dir_ / "held.mote").string(), kept = (dir_ / "kept.mote").string();
  run = mote("compile " + model + " --target cortex-m4 -o " + held);
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("  inputs:  float inputs held quantized"));
  run = mote("compile " + model + " --target cortex-m4 --float-inputs float -o " + kept);
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out, Not(HasSubstr("inputs:")));
  const std::string input = (dir_ / "x.bin").string();
  {
    std::vector<float> values(8 * 8 * 3);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 19) / 9.0f - 1.0f;
    std::ofstream out(input, std::ios::binary);
    out.write(reinterpret_cast<const char*>(values.data()),
              static_cast<std::streamsize>(values.size() * sizeof(float)));
  }
  const CommandResult a = mote("run " + held + " --input " + input);
  const CommandResult b = mote("run " + kept + " --input " + input);
  ASSERT_EQ(a.exit_code, 0) << a.out;
  ASSERT_EQ(b.exit_code, 0) << b.out;
  auto outputs = [](const std::string& text) {
    const size_t begin = text.find("output 0");
    return text.substr(begin, text.find("time:") - begin);
  };
  EXPECT_EQ(outputs(a.out), outputs(b.out));
  // The int8 bytes are not what it takes: the message says floats.
  const std::string short_input = (dir_ / "short.bin").string();
  std::ofstream(short_input, std::ios::binary) << std::string(192, '\0');
  run = mote("run " + held + " --input " + short_input);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.out, HasSubstr("needs exactly 768 (float32 values, which the runtime quantizes)"));
}

// --inputs-outside-arena: taught by --help, priced apart by plan and compile, and the program
// written records it (mote run binds the input and gives the same output).
TEST_F(PlanCommandTest, InputsOutsideTheArenaArePricedApart) {
  for (const char* command : {"plan", "compile"}) {
    const CommandResult help = mote(std::string(command) + " --help");
    EXPECT_THAT(help.out, HasSubstr("--inputs-outside-arena")) << command;
    EXPECT_THAT(help.out, HasSubstr("caller binds")) << command;
  }
  const std::string model = write_conv2d_x3();
  CommandResult run = mote("plan " + model + " --target cortex-m4");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  // Whether a run reuses its bytes (the float input held quantized: the QUANTIZE's output).
  EXPECT_THAT(run.out, HasSubstr("input quantize_0: "));
  EXPECT_THAT(run.out, Not(HasSubstr("inputs outside the arena")));
  run = mote("plan " + model + " --target cortex-m4 --inputs-outside-arena");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("inputs outside the arena: input 768 bytes (caller's buffer)"));
  EXPECT_THAT(run.out, ContainsRegex("auto: arena [0-9,]+ bytes \\+ inputs outside the arena: "
                                     "input 768 bytes \\(caller's buffer\\)"));
  const CommandResult json =
      mote("plan " + model + " --target cortex-m4 --inputs-outside-arena --json -", false);
  ASSERT_EQ(json.exit_code, 0) << json.out;
  const nlohmann::json outside = nlohmann::json::parse(json.out).at("inputs_outside_arena");
  ASSERT_EQ(outside.size(), 1u);
  EXPECT_EQ(outside[0].at("bytes"), 768);

  const std::string inside_program = (dir_ / "inside.mote").string();
  const std::string outside_program = (dir_ / "outside.mote").string();
  run = mote("compile " + model + " --target cortex-m4 -o " + inside_program);
  ASSERT_EQ(run.exit_code, 0) << run.out;
  run = mote("compile " + model + " --target cortex-m4 --inputs-outside-arena -o " +
             outside_program);
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("+ inputs outside the arena: input 768 bytes (caller's buffer)"));
  const CommandResult a = mote("run " + inside_program);
  const CommandResult b = mote("run " + outside_program);
  ASSERT_EQ(a.exit_code, 0) << a.out;
  ASSERT_EQ(b.exit_code, 0) << b.out;
  EXPECT_THAT(b.out, HasSubstr("I mote: inputs_outside_arena: 768 bytes"));
  EXPECT_THAT(a.out, Not(HasSubstr("inputs_outside_arena")));
  auto outputs = [](const std::string& text) {
    const size_t begin = text.find("output 0");
    return text.substr(begin, text.find("time:") - begin);
  };
  EXPECT_EQ(outputs(b.out), outputs(a.out));
}

// --optimize (and --stream, --no-stream): taught by --help; plan names the preset, the stage kept
// with its estimated cost and every stage priced; balanced, the default, streams where that costs
// little, time never; compile writes programs whose outputs are equal (mote run).
TEST_F(PlanCommandTest, StreamingReportsItsStagesAndKeepsTheOutputs) {
  for (const char* command : {"plan", "compile", "analyze", "validate", "demo"}) {
    const std::string help = mote(std::string(command) + " --help").out;
    for (const char* option : {"--optimize", "--stream", "--no-stream"}) {
      EXPECT_THAT(help, HasSubstr(option)) << command;
    }
  }
  const std::vector<uint8_t> bytes = mote::builder::write_model(mote::builder::vww_mobilenet_like());
  const std::string model = (dir_ / "vww_like.tflite").string();
  std::ofstream(model, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  CommandResult run = mote("plan " + model + " --target cortex-m4 --stream");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("optimize: ram\n"));
  EXPECT_THAT(run.out, ContainsRegex("row streaming: operators [0-9]+-[0-9]+ as one stage \\([0-9]+ "
                                     "row calls, rings [0-9,]+ bytes\\), arena [0-9,]+ bytes "
                                     "\\([0-9,]+ without\\); stages priced:\n  operators "
                                     "[0-9]+-[0-9]+: [0-9,]+ bytes, \\+[0-9.]+ % instructions"));
  EXPECT_THAT(run.out, ContainsRegex("instructions: \\+[0-9.]+ % estimated on cortex-m4"));
  const CommandResult balanced = mote("plan " + model + " --target cortex-m4 --optimize balanced");
  EXPECT_THAT(balanced.out, HasSubstr("optimize: balanced\n"));
  EXPECT_THAT(balanced.out, HasSubstr("row streaming: operators"));
  // Without a preset: balanced, the default, and --help says so.
  const CommandResult plain = mote("plan " + model + " --target cortex-m4");
  EXPECT_THAT(plain.out, HasSubstr("optimize: balanced\n"));
  EXPECT_THAT(plain.out, HasSubstr("row streaming: operators"));
  EXPECT_THAT(mote("compile --help").out, ContainsRegex("--optimize TEXT:\\{time,balanced,ram\\}=balanced"));
  for (const char* time : {"--optimize time", "--no-stream"}) {
    const CommandResult t = mote("plan " + model + " --target cortex-m4 " + time);
    EXPECT_THAT(t.out, HasSubstr("optimize: time\n")) << time;
    EXPECT_THAT(t.out, Not(HasSubstr("row streaming"))) << time;
  }
  EXPECT_EQ(mote("plan " + model + " --optimize ram --stream").exit_code, 2);
  EXPECT_THAT(mote("plan " + model + " --optimize fast").out, HasSubstr("time"));
  const std::string whole = (dir_ / "whole.mote").string();
  const std::string streamed = (dir_ / "streamed.mote").string();
  ASSERT_EQ(mote("compile " + model + " --target cortex-m4 --optimize time -o " + whole).exit_code, 0);
  const CommandResult compiled =
      mote("compile " + model + " --target cortex-m4 --optimize balanced -o " + streamed);
  ASSERT_EQ(compiled.exit_code, 0);
  EXPECT_THAT(compiled.out, ContainsRegex("optimize: balanced: operators [0-9]+-[0-9]+ stream"));
  const CommandResult a = mote("run " + whole);
  const CommandResult b = mote("run " + streamed);
  ASSERT_EQ(a.exit_code, 0) << a.out;
  ASSERT_EQ(b.exit_code, 0) << b.out;
  auto outputs = [](const std::string& text) {
    const size_t begin = text.find("output 0");
    return text.substr(begin, text.find("time:") - begin);
  };
  EXPECT_EQ(outputs(b.out), outputs(a.out));
  EXPECT_THAT(mote("plan --problem x.csv --stream").out, HasSubstr("--stream"));
}

}  // namespace
