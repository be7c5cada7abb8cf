// What a firmware project asks of `mote`: `compile --emit c` (a .c/.h pair that a C
// compiler takes as it is, with the plan's figures as constants), run as a user would.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.h"
#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"

namespace mote {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;
using Result = cli_testing::CliResult;

std::string quoted(const fs::path& p) {
  std::string q(1, '\'');  // appended piecewise: gcc 12 warns falsely on "'" + s + "'"
  q += p.string();
  q += '\'';
  return q;
}

class FirmwareCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(MOTE_TEST_TMP_DIR) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }

  fs::path write(const std::string& name, const std::vector<uint8_t>& bytes) const {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return p;
  }
  fs::path write_text(const std::string& name, const std::string& text) const {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
  Result run(const std::string& args) const { return cli_testing::run_mote(MOTE_CLI, args, dir_); }
  // Runs a shell command in the test's folder; returns its exit status.
  int shell(const std::string& command) const {
    const int status = std::system(("cd " + quoted(dir_) + " && " + command).c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::vector<fs::path> files() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename());
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path dir_;
};

// A C11 program that uses only the generated header: a static arena sized and aligned by its
// constants, then prints them and writes the array's bytes out for comparison with the .mote.
constexpr const char* kCheckProgram = R"(#include <stdio.h>
#include "conv_program.h"

static uint8_t arena[CONV_PROGRAM_ARENA_BYTES] __attribute__((aligned(CONV_PROGRAM_ARENA_ALIGN)));
_Static_assert(sizeof(conv_program) == CONV_PROGRAM_BYTES, "array size");
_Static_assert(CONV_PROGRAM_NUM_INPUTS == 1 && CONV_PROGRAM_NUM_OUTPUTS == 1, "one input, one output");

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  FILE* out = fopen(argv[1], "wb");
  if (!out || fwrite(conv_program, 1, conv_program_size, out) != CONV_PROGRAM_BYTES) return 3;
  fclose(out);
  printf("%d %d %d %d %s %d\n", CONV_PROGRAM_ARENA_BYTES, CONV_PROGRAM_ARENA_ALIGN,
         CONV_PROGRAM_INPUT0_BYTES, CONV_PROGRAM_OUTPUT0_BYTES, CONV_PROGRAM_TARGET, (int)((uintptr_t)conv_program % 16));
  return (uintptr_t)arena % CONV_PROGRAM_ARENA_ALIGN == 0 ? 0 : 4;
}
)";

TEST_F(FirmwareCli, EmitCWritesAPairThatCompilesAsCWithThePlansFigures) {
  const fs::path model = write("conv2d_x3.tflite", builder::write_model(builder::conv2d_x3()));
  const Result r = run("compile " + quoted(model) +
                       " --target cortex-m4 --emit mote,c -o conv_program.mote --json plan.json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("-> conv_program.mote, conv_program.c, conv_program.h for cortex-m4"));
  const json plan = json::parse(cli_testing::read_text(dir_ / "plan.json"));
  const std::string header = cli_testing::read_text(dir_ / "conv_program.h");
  EXPECT_THAT(header, HasSubstr("#define CONV_PROGRAM_ARENA_BYTES " +
                                std::to_string(plan["results"][0]["arena_bytes"].get<int>()) + "\n"));
  // conv2d_x3: float32 1x8x8x3 in, held quantized as int8 (the model's QUANTIZE left out), float32
  // 1x8x8x8 out; float tensors carry no quantization.
  EXPECT_THAT(header, HasSubstr("/* input 0: int8 [1,8,8,3], scale 0.0078125, zero point 0; the "
                                "model's float32 input, held quantized: write floats with "
                                "mote_write_input_float */\n#define CONV_PROGRAM_INPUT0_BYTES 192\n"
                                "#define CONV_PROGRAM_INPUT0_TAKES_FLOAT 1\n"));
  EXPECT_THAT(header, HasSubstr("#define CONV_PROGRAM_OUTPUT0_BYTES 2048\n"));

  write_text("check.c", kCheckProgram);
  const fs::path cc = MOTE_C_COMPILER;
  ASSERT_EQ(shell(quoted(cc) + " -std=c11 -Wall -Wextra -Werror -pedantic check.c conv_program.c "
                  "-o check > cc.txt 2>&1"), 0)
      << cli_testing::read_text(dir_ / "cc.txt");
  ASSERT_EQ(shell("./check embedded.bin > figures.txt"), 0);
  EXPECT_EQ(cli_testing::read_text(dir_ / "embedded.bin"),
            cli_testing::read_text(dir_ / "conv_program.mote"));
  const std::string expected = std::to_string(plan["results"][0]["arena_bytes"].get<int>()) + " " +
                               std::to_string(plan["alignment"].get<int>()) +
                               " 192 2048 cortex-m4 0\n";
  EXPECT_EQ(cli_testing::read_text(dir_ / "figures.txt"), expected);
  // C99 (no _Alignas) and C++ take the same pair.
  EXPECT_EQ(shell(quoted(cc) + " -std=c99 -Wall -Wextra -Werror -c conv_program.c -o c99.o"), 0);
  const fs::path cxx = MOTE_CXX_COMPILER;
  EXPECT_EQ(shell(quoted(cxx) + " -std=c++17 -Wall -Wextra -Werror -x c++ -c conv_program.c -o cxx.o"), 0);
}

TEST_F(FirmwareCli, EmitCAloneWritesOnlyThePairNamedByTheOutputAndName) {
  const fs::path model = write("conv2d_x3.tflite", builder::write_model(builder::conv2d_x3()));
  const Result r = run("compile " + quoted(model) + " --emit c -o kws.c --name my_model");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(files(), (std::vector<fs::path>{"conv2d_x3.tflite", "kws.c", "kws.h"}));
  EXPECT_THAT(cli_testing::read_text(dir_ / "kws.h"), HasSubstr("extern const uint8_t my_model[MY_MODEL_BYTES];"));
  EXPECT_THAT(cli_testing::read_text(dir_ / "kws.c"), HasSubstr("#include \"kws.h\""));
}

TEST_F(FirmwareCli, EmitCRefusesStdoutAndBadNamesAndWritesNothing) {
  const fs::path model = write("conv2d_x3.tflite", builder::write_model(builder::conv2d_x3()));
  Result r = run("compile " + quoted(model) + " --emit c -o -");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("not standard output"));
  r = run("compile " + quoted(model) + " --emit c --name 3d_model");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("'3d_model' is not a C identifier"));
  r = run("compile " + quoted(model) + " --name model");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("add --emit c"));
  r = run("compile " + quoted(model) + " --emit mote,c -o kws.c");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("give -o NAME.mote"));
  r = run("compile " + quoted(model) + " --emit cpp");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(files(), (std::vector<fs::path>{"conv2d_x3.tflite"}));
}

}  // namespace
}  // namespace mote

namespace mote {
namespace {

// kws_dscnn_like ends in SOFTMAX: an int8 [1,12] output with scale 1/256 and zero point -128.
class RunCli : public FirmwareCli {
 protected:
  void SetUp() override {
    FirmwareCli::SetUp();
    const fs::path model = write("kws.tflite", builder::write_model(builder::kws_dscnn_like()));
    const Result r = run("compile " + quoted(model) + " -o kws.mote");
    ASSERT_EQ(r.status, 0) << r.err;
  }
};

TEST_F(RunCli, PrintsDequantizedOutputsTopFiveAndTime) {
  const Result r = run("run kws.mote --output scores.bin --json run.json --repeat 2");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string bytes = cli_testing::read_text(dir_ / "scores.bin");
  ASSERT_EQ(bytes.size(), 12u);
  const json j = json::parse(cli_testing::read_text(dir_ / "run.json"));
  const json& out = j["outputs"][0];
  EXPECT_EQ(out["type"], "int8");
  EXPECT_EQ(out["shape"], json::array({1, 12}));
  const double scale = out["scale"];
  const int zero_point = out["zero_point"];
  EXPECT_FLOAT_EQ(scale, 1.0f / 256);
  EXPECT_EQ(zero_point, -128);
  std::vector<std::pair<double, int>> expected;  // (value, index), to rank
  for (int i = 0; i < 12; ++i) {
    const int q = static_cast<int8_t>(bytes[i]);
    EXPECT_EQ(out["raw"][i], q);
    EXPECT_DOUBLE_EQ(out["values"][i].get<double>(), scale * (q - zero_point));
    expected.push_back({scale * (q - zero_point), i});
  }
  std::stable_sort(expected.begin(), expected.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  ASSERT_EQ(out["top"].size(), 5u);
  std::string top_line = "  top 5:";
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(out["top"][k]["index"], expected[k].second);
    char value[32];
    std::snprintf(value, sizeof(value), "%.6g", expected[k].first);
    top_line += std::string(k ? "," : "") + " [" + std::to_string(expected[k].second) + "] " + value;
  }
  EXPECT_THAT(r.out, HasSubstr("output 0: int8 [1,12], scale 0.00390625, zero point -128 (values dequantized)\n"));
  EXPECT_THAT(r.out, HasSubstr(top_line + "\n"));
  EXPECT_THAT(r.out, HasSubstr("I mote: temp_allocator: 0 bytes\n"));
  EXPECT_THAT(r.out, HasSubstr(" ms per inference on this host (portable kernels; 2 runs, mean)\n"));
  EXPECT_GT(j["ms_per_inference"].get<double>(), 0.0);
  EXPECT_EQ(j["repeat"], 2);
  EXPECT_EQ(j["memory_status"]["temp_allocator"], 0);
}

TEST_F(RunCli, JsonOnStdoutSendsTheTextToStderr) {
  const Result r = run("run kws.mote --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["outputs"].size(), 1u);
  EXPECT_THAT(r.err, HasSubstr("output 0: int8 [1,12]"));
}

TEST_F(RunCli, OnlyOneOutputOnStdout) {
  const Result r = run("run kws.mote --output - --json -");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("only one of them can go to standard output"));
}

TEST_F(RunCli, AFloatOutputIsPrintedAsItIs) {
  const fs::path model = write("conv2d_x3.tflite", builder::write_model(builder::conv2d_x3()));
  ASSERT_EQ(run("compile " + quoted(model) + " -o conv.mote").status, 0);
  const Result r = run("run conv.mote --json run.json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("output 0: float32 [1,8,8,8]\n  values: "));
  EXPECT_THAT(r.out, HasSubstr(" ... (512 in all; every one in --json)\n"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("top 5")));  // not a classifier's shape
  const json j = json::parse(cli_testing::read_text(dir_ / "run.json"));
  EXPECT_EQ(j["outputs"][0]["values"].size(), 512u);
  EXPECT_FALSE(j["outputs"][0].contains("raw"));
}

}  // namespace
}  // namespace mote

namespace mote {
namespace {

TEST_F(FirmwareCli, BudgetsFailNamingTheFiguresAndWhatTookTheSpaceAndWriteNothing) {
  const fs::path model = write("kws.tflite", builder::write_model(builder::kws_dscnn_like()));
  Result r = run("compile " + quoted(model) + " --target cortex-m4 --json plan.json -o fits.mote");
  ASSERT_EQ(r.status, 0) << r.err;
  const json plan = json::parse(cli_testing::read_text(dir_ / "plan.json"));
  const uint64_t arena = plan["results"][0]["arena_bytes"];
  // The flash budget holds the program and the code it links (an estimate, for measured CPUs).
  const json& code = plan["program"]["code_bytes_estimate"];
  ASSERT_TRUE(code.is_object()) << plan["program"].dump();
  const uint64_t program = fs::file_size(dir_ / "fits.mote") + code["runtime"].get<uint64_t>() +
                           code["kernels"].get<uint64_t>();
  EXPECT_GT(code["kernels"].get<uint64_t>(), 0u);
  fs::remove(dir_ / "plan.json");
  fs::remove(dir_ / "fits.mote");

  // Exactly the figures fit; a byte less of flash does not.
  r = run("compile " + quoted(model) + " --target cortex-m4 -o exact.mote --ram-limit " +
          std::to_string(arena) + " --flash-limit " + std::to_string(program));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  code:    about "));
  fs::remove(dir_ / "exact.mote");
  r = run("compile " + quoted(model) + " --target cortex-m4 -o exact.mote --flash-limit " +
          std::to_string(program - 1));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr(" by 1; the largest constants:"));

  r = run("compile " + quoted(model) + " --target cortex-m4 --emit mote,c --json p.json "
          "--ram-limit " + std::to_string(arena - 1) + " --flash-limit 1000");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("error: " + model.string() + ": does not fit for cortex-m4: the arena needs "));
  EXPECT_THAT(r.err, HasSubstr("over --ram-limit "));
  EXPECT_THAT(r.err, HasSubstr(" by 1 (lower bound "));
  EXPECT_THAT(r.err, HasSubstr("live at its peak, step "));
  EXPECT_THAT(r.err, HasSubstr("\n  activation "));
  EXPECT_THAT(r.err, HasSubstr("the program is "));
  EXPECT_THAT(r.err, HasSubstr(" and the code it links about "));
  EXPECT_THAT(r.err, HasSubstr("an estimate from the firmware build's images"));
  EXPECT_THAT(r.err, HasSubstr("over --flash-limit 1,000 by "));
  // The keyword-spotting model's largest constant is a 64x64 pointwise filter (4,096 bytes).
  EXPECT_THAT(r.err, HasSubstr("(CONV_2D) "));
  EXPECT_THAT(r.err, HasSubstr(": 4,096 bytes"));
  EXPECT_THAT(r.err, HasSubstr("nothing written"));
  EXPECT_EQ(files(), (std::vector<fs::path>{"kws.tflite"}));

  // Planned for time, below the lower bound (8,384) no algorithm fits: the message names
  // --stream, whose arena fits, never --algorithm (nor for flash, which no algorithm changes);
  // the peak list says what its buffers total and that outputs over the inputs they replace
  // share some of it.
  r = run("compile " + quoted(model) + " --target cortex-m4 --optimize time --ram-limit 8000 "
          "--flash-limit 1000");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("(lower bound 8,384); --stream fits: its arena is 6,352 bytes;"));
  EXPECT_THAT(r.err, Not(HasSubstr("--algorithm")));
  EXPECT_THAT(r.err, HasSubstr("bytes in 3 buffers ("));
  EXPECT_THAT(r.err, HasSubstr(" or more of them shared: outputs over the inputs they replace):"));
  EXPECT_THAT(r.err, Not(HasSubstr("1 buffers")));
  EXPECT_EQ(files(), (std::vector<fs::path>{"kws.tflite"}));

  r = run("compile " + quoted(model) + " --ram-limit 0");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("--ram-limit"));
}

TEST_F(FirmwareCli, HelpTeachesTheNewOptions) {
  Result r = run("compile --help");
  ASSERT_EQ(r.status, 0);
  for (const char* flag : {"--emit", "--name", "--ram-limit", "--flash-limit", "KWS_PROGRAM_ARENA_BYTES"}) {
    EXPECT_THAT(r.out, HasSubstr(flag));
  }
  r = run("run --help");
  ASSERT_EQ(r.status, 0);
  EXPECT_THAT(r.out, HasSubstr("--json"));
  EXPECT_THAT(r.out, HasSubstr("top 5"));
}

}  // namespace
}  // namespace mote

namespace mote {
namespace {

// `mote analyze` against `mote compile --json` (the plan) and `mote inspect --json` (the totals).
// A preset's plan (a.json's "optimize" names its stage, if any): the bound below holds for plans
// without a stage, whose buffers are whole tensors.
bool streams(const json& analysis) {
  return analysis["totals"]["optimize"].get<std::string>().find(" stream (") != std::string::npos;
}

void expect_analysis_agrees(const fs::path& dir, const fs::path& model, const std::string& cpu,
                            const std::string& preset,
                            const std::function<Result(const std::string&)>& run) {
  SCOPED_TRACE(model.filename().string() + " " + cpu + " " + preset);
  const std::string flags = " --target " + cpu + " --optimize " + preset;
  Result r = run("analyze " + quoted(model) + flags + " --json a.json --csv a.csv");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("mote analyze: "));
  EXPECT_THAT(r.out, HasSubstr("<- peak"));
  const std::string text = r.out;
  r = run("compile " + quoted(model) + flags + " -o m.mote --json plan.json");
  ASSERT_EQ(r.status, 0) << r.err;
  r = run("inspect " + quoted(model) + " --json inspect.json");
  ASSERT_EQ(r.status, 0) << r.err;
  // The sum of the live buffers is the bound with every output apart from its inputs (and the
  // planes of depthwise convolutions run in place beside, at most); with overlap, buffers share
  // bytes, so it may exceed the arena.
  r = run("plan " + quoted(model) + flags + " --no-overlap --json apart.json");
  ASSERT_EQ(r.status, 0) << r.err;
  // (Without overlap the preset may stream where with it it does not: its bound is another
  // problem's then.)
  const std::string none = "row streaming: no stage";
  const size_t streaming = r.out.find("row streaming: ");
  const bool apart_streams =
      streaming != std::string::npos && r.out.compare(streaming, none.size(), none) != 0;
  const json apart = json::parse(cli_testing::read_text(dir / "apart.json"));
  const json a = json::parse(cli_testing::read_text(dir / "a.json"));
  const json plan = json::parse(cli_testing::read_text(dir / "plan.json"));
  const json inspect = json::parse(cli_testing::read_text(dir / "inspect.json"));
  uint64_t max_arena = 0;
  uint64_t max_live = 0;
  uint64_t planes = 0;
  int64_t macs = 0;
  // A PAD folded into the operator after it has no step of its own, nor the QUANTIZE of a float
  // input held quantized.
  ASSERT_EQ(a["operators"].size() + a["totals"]["folded_pads"].get<size_t>() +
                a["totals"]["quantized_inputs"].get<size_t>(),
            inspect["operators"].size());
  for (size_t i = 0; i < a["operators"].size(); ++i) {
    const json& row = a["operators"][i];
    EXPECT_EQ(row["step"], i);
    // Rows go by step; the order search may run a model's operator at another step.
    const json& op = inspect["operators"].at(row["model_index"].get<size_t>());
    EXPECT_EQ(row["model_index"], plan["operator_order"]["order"][i]);
    EXPECT_EQ(row["type"], op["type"]);
    EXPECT_EQ(row["macs"], op["macs"]);
    EXPECT_EQ(row["constant_bytes"], op["constant_bytes"]);
    EXPECT_EQ(row["scratch_bytes"], plan["operators"][i]["scratch_bytes"]);
    EXPECT_EQ(row["kernel_variant"], plan["operators"][i]["kernel_variant"]);
    max_arena = std::max(max_arena, row["arena_bytes"].get<uint64_t>());
    max_live = std::max(max_live, row["live_bytes"].get<uint64_t>());
    if (row["kernel_variant"] == "in-place") planes += row["scratch_bytes"].get<uint64_t>();
    macs += row["macs"].get<int64_t>();
  }
  EXPECT_EQ(max_arena, plan["results"][0]["arena_bytes"].get<uint64_t>());
  if (!streams(a) && !apart_streams) {
    EXPECT_GE(max_live, apart["lower_bound_bytes"].get<uint64_t>());
    EXPECT_LE(max_live, apart["lower_bound_bytes"].get<uint64_t>() + planes);
    if (planes == 0) EXPECT_EQ(max_live, apart["lower_bound_bytes"].get<uint64_t>());
  }
  EXPECT_LE(plan["lower_bound_bytes"].get<uint64_t>(), max_live);
  EXPECT_EQ(a["totals"]["arena_bytes"], plan["results"][0]["arena_bytes"]);
  // The step analyze marks as the peak is the plan report's.
  EXPECT_EQ(a["totals"]["peak_step"], plan["results"][0]["peak_step"]);
  const size_t peak_line = text.rfind('\n', text.find("<- peak")) + 1;
  EXPECT_EQ(std::stoi(text.substr(peak_line, 5)), plan["results"][0]["peak_step"].get<int>());
  EXPECT_EQ(a["totals"]["macs"], inspect["macs"]);
  EXPECT_EQ(macs, inspect["macs"].get<int64_t>());
  EXPECT_EQ(a["totals"]["constant_bytes"], inspect["constant_bytes"]);
  EXPECT_EQ(a["totals"]["program_bytes"], fs::file_size(dir / "m.mote"));
  // The CSV: a header, one line per operator, the total line.
  const std::string csv = cli_testing::read_text(dir / "a.csv");
  EXPECT_EQ(static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')), a["operators"].size() + 2);
  EXPECT_THAT(csv, HasSubstr("\ntotal,,," + std::to_string(inspect["macs"].get<int64_t>()) + "," +
                             std::to_string(inspect["constant_bytes"].get<int64_t>()) + ","));
}

TEST_F(FirmwareCli, AnalyzeAgreesWithThePlanAndInspectOnBuilderModels) {
  const auto runner = [this](const std::string& args) { return run(args); };
  for (const char* name : {"kws_dscnn_like", "resnet8_like", "tiny_all_ops"}) {
    for (const builder::NamedModel& m : builder::all_named_models()) {
      if (m.name != name) continue;
      const fs::path model = write(m.name + ".tflite", builder::write_model(m.graph));
      for (const char* cpu : {"cortex-m4", "cortex-m55"}) {
        for (const char* preset : {"time", "balanced"}) {
          expect_analysis_agrees(dir_, model, cpu, preset, runner);
        }
      }
    }
  }
}

TEST_F(FirmwareCli, AnalyzeAgreesWithThePlanAndInspectOnSharedModels) {
  const fs::path models = fs::path(MOTE_SHARED_DIR) / "models";
  if (!fs::is_directory(models)) GTEST_SKIP() << "no " << models;
  const auto runner = [this](const std::string& args) { return run(args); };
  int seen = 0;
  for (const auto& e : fs::directory_iterator(models)) {
    if (e.path().extension() != ".tflite") continue;
    ++seen;
    for (const char* cpu : {"cortex-m4", "cortex-m55"}) {
      for (const char* preset : {"time", "balanced"}) {
        expect_analysis_agrees(dir_, e.path(), cpu, preset, runner);
      }
    }
  }
  EXPECT_GT(seen, 0);
}

// `mote analyze m.mote`: the program's own rows equal those of its model compiled the same way,
// but for what a program does not keep (the model's operator indices, folded shape operands).
void expect_program_analysis_agrees(const fs::path& dir, const fs::path& model,
                                    const std::string& flags,
                                    const std::function<Result(const std::string&)>& run) {
  SCOPED_TRACE(model.filename().string() + " " + flags);
  Result r = run("analyze " + quoted(model) + " " + flags + " --json model.json");
  ASSERT_EQ(r.status, 0) << r.err;
  r = run("compile " + quoted(model) + " " + flags + " -o p.mote");
  ASSERT_EQ(r.status, 0) << r.err;
  r = run("analyze " + quoted(dir / "p.mote") + " --json program.json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json m = json::parse(cli_testing::read_text(dir / "model.json"));
  const json p = json::parse(cli_testing::read_text(dir / "program.json"));
  const bool streamed = streams(m);
  EXPECT_EQ(p["target"], m["target"]);
  EXPECT_EQ(p["extension"], m["extension"]);
  ASSERT_EQ(p["operators"].size(), m["operators"].size());
  for (size_t i = 0; i < m["operators"].size(); ++i) {
    const json &a = m["operators"][i], &b = p["operators"][i];
    SCOPED_TRACE("step " + std::to_string(i) + " " + a["type"].get<std::string>());
    for (const char* key : {"step", "type", "output_shape", "macs", "kernel_variant"}) {
      EXPECT_EQ(b[key], a[key]) << key;
    }
    // A stage's members run row kernels through scratch the stage shares (the program's); the
    // model's rows keep the whole-map kernels' figures.
    if (streamed) continue;
    for (const char* key : {"live_bytes", "arena_bytes", "scratch_bytes"}) {
      EXPECT_EQ(b[key], a[key]) << key;
    }
    EXPECT_EQ(b["model_index"], i);
    // A program keeps the constants its kernels read; shape operands went into options.
    EXPECT_LE(b["constant_bytes"].get<int64_t>(), a["constant_bytes"].get<int64_t>());
    if (a["macs"].get<int64_t>() > 0) EXPECT_EQ(b["constant_bytes"], a["constant_bytes"]);
  }
  for (const char* key : {"operators", "macs", "arena_bytes", "lower_bound_bytes", "program_bytes"}) {
    EXPECT_EQ(p["totals"][key], m["totals"][key]) << key;
  }
  if (!streamed) {
    EXPECT_EQ(p["totals"]["max_scratch_bytes"], m["totals"]["max_scratch_bytes"]);
    EXPECT_EQ(p["totals"]["peak_step"], m["totals"]["peak_step"]);
  }
}

TEST_F(FirmwareCli, AnalyzeOfAProgramAgreesWithItsModel) {
  const auto runner = [this](const std::string& args) { return run(args); };
  std::vector<fs::path> models;
  for (const builder::NamedModel& m : builder::all_named_models()) {
    if (m.name == "kws_dscnn_like" || m.name == "resnet8_like" || m.name == "tiny_all_ops") {
      models.push_back(write(m.name + ".tflite", builder::write_model(m.graph)));
    }
  }
  const fs::path shared = fs::path(MOTE_SHARED_DIR) / "models";
  if (fs::is_directory(shared)) {
    for (const auto& e : fs::directory_iterator(shared)) {
      if (e.path().extension() == ".tflite") models.push_back(e.path());
    }
  }
  ASSERT_GE(models.size(), 3u);
  for (const fs::path& model : models) {
    for (const char* flags : {"--target cortex-m4 --optimize time", "--target cortex-m55",
                              "--target cortex-m0plus", "--target cortex-m4 --stream"}) {
      expect_program_analysis_agrees(dir_, model, flags, runner);
    }
  }
}

TEST_F(FirmwareCli, AnalyzeTextAndStdoutForms) {
  const fs::path model = write("conv2d_x3.tflite", builder::write_model(builder::conv2d_x3()));
  Result r = run("analyze " + quoted(model) + " --target cortex-m4");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(" step  operator"));
  EXPECT_THAT(r.out, HasSubstr("CONV_2D"));
  // The model's 5 operators but its first QUANTIZE, left out: the float input is held quantized.
  EXPECT_THAT(r.out, HasSubstr("total  4 operators"));
  r = run("analyze " + quoted(model) + " --csv -");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("step,type,output_shape,macs,", 0), 0u);
  r = run("analyze " + quoted(model) + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["operators"].size(), 4u);
  r = run("analyze " + quoted(model) + " --json - --csv -");
  EXPECT_EQ(r.status, 2);
  r = run("analyze " + quoted(dir_ / "missing.tflite"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("missing.tflite: cannot open"));
  EXPECT_EQ(files(), (std::vector<fs::path>{"conv2d_x3.tflite"}));
}

}  // namespace
}  // namespace mote

namespace mote {
namespace {

// The QEMU runs themselves are firmware tests (firmware.<cpu>.validate.*, cross/CMakeLists.txt);
// here, what needs no firmware: the refusals.
TEST_F(FirmwareCli, ValidateSaysWhatItLacks) {
  const fs::path model = write("conv2d_x3.tflite", builder::write_model(builder::conv2d_x3()));
  Result r = run("validate " + quoted(model) + " --target cortex-m4 --runner " +
                 quoted(dir_ / "none.elf"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("none.elf: no runner image for cortex-m4 (--runner names no file)"));
  r = run("validate " + quoted(model) + " --target cortex-m0");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("--target cortex-m0: no QEMU board runs it"));
  r = run("validate " + quoted(model) + " --inputs 0");
  EXPECT_EQ(r.status, 2);
  r = run("validate --help");
  EXPECT_THAT(r.out, HasSubstr("mismatching operator and the largest difference"));
  EXPECT_EQ(files(), (std::vector<fs::path>{"conv2d_x3.tflite"}));
}

// A .mote program is validated as it was compiled: its own CPU, and a --target that differs is
// refused naming both (the QEMU run of a shipped program is firmware.<cpu>.validate.shipped_program).
TEST_F(FirmwareCli, ValidateTakesAProgramForItsOwnCpu) {
  const fs::path model = write("conv2d_x3.tflite", builder::write_model(builder::conv2d_x3()));
  ASSERT_EQ(run("compile " + quoted(model) + " --target cortex-m4 -o " + quoted(dir_ / "m.mote")).status, 0);
  Result r = run("validate " + quoted(dir_ / "m.mote") + " --runner " + quoted(dir_ / "none.elf"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("none.elf: no runner image for cortex-m4"));
  r = run("validate " + quoted(dir_ / "m.mote") + " --target cortex-m55");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("m.mote: a program compiled for cortex-m4, not --target cortex-m55"));
  const std::string bytes = cli_testing::read_text(dir_ / "m.mote");
  write("cut.mote", std::vector<uint8_t>(bytes.begin(), bytes.begin() + 64));
  r = run("validate " + quoted(dir_ / "cut.mote"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("cut.mote: invalid program"));
}

}  // namespace
}  // namespace mote
