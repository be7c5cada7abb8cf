// `mote demo` as a user runs it: the files it writes, its figures against the pipeline's own,
// the firmware step (skipped, run, failed), and --help with an example for every subcommand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"
#include "compiler/emit/emit.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "compiler/tflite/reader.h"

namespace mote {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

using Result = cli_testing::CliResult;
using cli_testing::read_text;

// ctest runs each test in its own process, possibly at the same time: one folder per process.
fs::path tmp(const std::string& name) {
  return fs::path(MOTE_TEST_TMP_DIR) / ("p" + std::to_string(getpid())) / name;
}

std::vector<uint8_t> read_bytes(const fs::path& path) {
  const std::string text = read_text(path);
  return {text.begin(), text.end()};
}

// Runs `mote ARGS` in `dir`.
Result mote(const std::string& args, const fs::path& dir) {
  return cli_testing::run_mote(MOTE_CLI, args, dir);
}

std::string commas(uint64_t value) {
  std::string digits = std::to_string(value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

// A firmware folder laid out like the build's, with `image` as the demo runner for `cpu`.
fs::path fake_firmware_dir(const std::string& name, const std::string& cpu, const fs::path& image) {
  const fs::path dir = tmp(name);
  fs::remove_all(dir);
  fs::create_directories(dir / ("firmware-" + cpu));
  fs::create_symlink(image, dir / ("firmware-" + cpu) / "runner_kws_dscnn_like.elf");
  return dir;
}

class DemoCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // The run most tests look at: in a fresh folder, without firmware (which depends on the build).
    result_ = mote("demo --no-firmware --output-dir out", tmp("run"));
  }
  static void TearDownTestSuite() { fs::remove_all(tmp("")); }
  static fs::path out() { return tmp("run") / "out"; }
  static Result result_;
};
Result DemoCli::result_;

TEST_F(DemoCli, SucceedsAndWritesItsFiles) {
  ASSERT_EQ(result_.status, 0) << result_.out << result_.err;
  for (const char* file : {"demo-kws.tflite", "demo-kws-cortex-m55.mote", "demo-kws-cortex-m4.mote",
                           "demo-plan.svg", "demo-report.json"}) {
    EXPECT_TRUE(fs::is_regular_file(out() / file)) << file;
  }
  EXPECT_THAT(read_text(out() / "demo-plan.svg"), HasSubstr("<svg"));
  // Progress on stderr, the report on stdout.
  EXPECT_THAT(result_.err, HasSubstr("mote demo: compiling for cortex-m55"));
  EXPECT_THAT(result_.out, Not(HasSubstr("mote demo: compiling")));
  EXPECT_THAT(result_.out, HasSubstr("firmware     skipped: --no-firmware"));
  // The labels say what runs (and so what the scratch is planned for).
  EXPECT_THAT(result_.out, HasSubstr("\ncortex-m55 (mve, mve kernels)\n"));
  EXPECT_THAT(result_.out, HasSubstr("\ncortex-m4 (dsp, dsp kernels)\n"));
  EXPECT_THAT(result_.out, Not(HasSubstr("Helium/MVE kernels")));
  EXPECT_THAT(result_.out, Not(HasSubstr("(DSP kernels)")));
}

TEST_F(DemoCli, TheModelIsTheBuildersKeywordSpottingModel) {
  ASSERT_EQ(result_.status, 0);
  EXPECT_EQ(read_bytes(out() / "demo-kws.tflite"), builder::write_model(builder::kws_dscnn_like()));
}

// The programs, the plans and the figures printed are the pipeline's own.
TEST_F(DemoCli, FiguresAreThePipelines) {
  ASSERT_EQ(result_.status, 0);
  const ir::Graph graph = tflite::read_model_file(out() / "demo-kws.tflite");
  const json report = json::parse(read_text(out() / "demo-report.json"));
  ASSERT_EQ(report["targets"].size(), 2u);
  std::vector<uint64_t> arenas;
  for (const json& target : report["targets"]) {
    const std::string cpu = target["target"];
    SCOPED_TRACE(cpu);
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    pipeline::apply_optimize(pipeline::Optimize::kBalanced, options.plan);  // the demo's default
    const pipeline::Compiled compiled = pipeline::compile(graph, options);
    const uint64_t arena = compiled.planned.plan().arena_bytes;
    arenas.push_back(arena);

    const std::vector<uint8_t> program = read_bytes(out() / ("demo-kws-" + cpu + ".mote"));
    EXPECT_EQ(target["program"]["bytes"], program.size());
    EXPECT_EQ(program.size(), compiled.program.size());
    // The file is a valid program that plans the same arena.
    const pipeline::HostRun run = pipeline::run_on_host(program);
    EXPECT_EQ(run.status.arena_planned, arena);
    EXPECT_EQ(target["host_run"]["arena_planned"], arena);
    EXPECT_EQ(target["host_run"]["temp_allocator"], 0);
    EXPECT_EQ(target["lower_bound_bytes"], compiled.planned.bound.bytes);
    EXPECT_EQ(target["results"][0]["arena_bytes"], arena);

    // First-fit on TensorFlow Lite Micro's problem (every output apart, no kernel in place, no
    // stage), in the JSON and on stdout; and the arena without overlap, as --no-overlap plans it.
    pipeline::CompileOptions apart = options;
    apart.plan.overlap = false;
    const pipeline::PlannedGraph apart_planned = pipeline::plan_graph(graph, apart.plan);
    const planner::Plan first_fit =
        planner::plan(pipeline::tflm_problem(graph, options.plan), planner::Algorithm::kFirstFit);
    EXPECT_EQ(target["first_fit_arena_bytes"], first_fit.arena_bytes);
    const uint64_t apart_arena = apart_planned.plan().arena_bytes;
    EXPECT_EQ(target["no_overlap_arena_bytes"], apart_arena);
    EXPECT_THAT(result_.out, HasSubstr("  no overlap   " + commas(apart_arena) + " bytes"));
    EXPECT_LE(arena, apart_arena);
    EXPECT_THAT(result_.out, HasSubstr("  first-fit    " + commas(first_fit.arena_bytes) + " bytes"));
    EXPECT_THAT(result_.out, HasSubstr("  arena        " + commas(arena) + " bytes"));
    EXPECT_THAT(result_.out, HasSubstr("  lower bound  " + commas(compiled.planned.bound.bytes)));
    EXPECT_EQ(target["firmware"]["state"], "skipped");
  }
  // The default preset (balanced) streams the first ten operators on the M4, their estimated
  // cost within 5 % (targets/cortex-m/instruction_costs.tsv): the rings and the row kernels'
  // shared scratch. On the M55 the same stage costs more than 5 % of its faster whole maps: the
  // whole maps are planned, and the line names the arena left to --optimize ram.
  EXPECT_EQ(arenas[0], 8448u);
  EXPECT_EQ(arenas[1], 6352u);
  EXPECT_THAT(result_.out, HasSubstr("  optimize     balanced: operators 0-9 stream ("));
  EXPECT_THAT(result_.out, HasSubstr("  optimize     balanced: nothing streams; an arena of 6,400 "
                                     "bytes was not taken"));
}

TEST_F(DemoCli, ShowsWhereFirstFitFallsShort) {
  ASSERT_EQ(result_.status, 0);
  // With overlap, TensorFlow Lite Micro's rule (first-fit, outputs apart from inputs) falls
  // short on the demo model itself; the vww contrast is shown only where it does not.
  const ir::Graph graph = tflite::read_model_file(out() / "demo-kws.tflite");
  pipeline::PlanRequest request;
  request.cpu = "cortex-m4";
  pipeline::apply_optimize(pipeline::Optimize::kBalanced, request);
  const pipeline::PlannedGraph kws = pipeline::plan_graph(graph, request);
  const planner::Plan first_fit =
      planner::plan(pipeline::tflm_problem(graph, request), planner::Algorithm::kFirstFit);
  ASSERT_GT(first_fit.arena_bytes, kws.plan().arena_bytes);
  EXPECT_THAT(result_.out, HasSubstr("  first-fit    " + commas(first_fit.arena_bytes) +
                                     " bytes with TensorFlow Lite Micro's rule: " +
                                     commas(first_fit.arena_bytes - kws.plan().arena_bytes) +
                                     " bytes"));
  const json report = json::parse(read_text(out() / "demo-report.json"));
  EXPECT_FALSE(report.contains("first_fit_contrast"));
}

TEST_F(DemoCli, SkipsFirmwareWithoutARunnerImage) {
  const fs::path empty = tmp("no-firmware");
  fs::create_directories(empty);
  const Result r = mote("demo --firmware-dir '" + empty.string() + "'", tmp("skip"));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("firmware     skipped: "));
  // The runner the firmware build makes (targets/cortex-m/cross), where it was looked for.
  EXPECT_THAT(r.out, HasSubstr("no runner image for cortex-m55 at " + empty.string() +
                               "/firmware-cortex-m55/run_kws_dscnn_like.elf; "));
  EXPECT_THAT(r.out, Not(HasSubstr("runner_kws_dscnn_like.elf")));
}

TEST_F(DemoCli, BadOutputFolderIsBadInput) {
  const fs::path file = tmp("a-file");
  std::ofstream(file) << "x";
  const Result r = mote("demo --no-firmware --output-dir '" + file.string() + "/sub'", tmp("bad"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("error: --output-dir"));
}

// The firmware step with the firmware build's fake-runtime runners (targets/cortex-m/tests):
// QEMU runs the image, the demo reads its lines, and a failing image fails the demo.
TEST_F(DemoCli, RunsTheFirmwareRunnerUnderQemu) {
  const fs::path fake = fs::path(MOTE_BINARY_DIR) / "firmware-cortex-m55" / "runner_fake.elf";
  const fs::path corrupt =
      fs::path(MOTE_BINARY_DIR) / "firmware-cortex-m55" / "runner_fake_corrupt.elf";
  if (!fs::exists(fake) || !fs::exists(corrupt)) {
    GTEST_SKIP() << "this build has no Cortex-M55 firmware";
  }
  const Result ok = mote(
      "demo --firmware-dir '" + fake_firmware_dir("fw-ok", "cortex-m55", fake).string() + "'",
      tmp("fw-ok-run"));
  ASSERT_EQ(ok.status, 0) << ok.out << ok.err;
  EXPECT_THAT(ok.out, HasSubstr("firmware     ok on QEMU mps3-an547 (runner_kws_dscnn_like.elf)"));
  EXPECT_THAT(ok.out, HasSubstr("instructions per inference"));
  const json report = json::parse(read_text(tmp("fw-ok-run") / "demo-report.json"));
  EXPECT_EQ(report["targets"][0]["firmware"]["state"], "ok");
  EXPECT_EQ(report["targets"][0]["firmware"]["exit_status"], 0);
  EXPECT_EQ(report["targets"][0]["firmware"]["outputs_match_expected"], true);
  EXPECT_EQ(report["targets"][1]["firmware"]["state"], "skipped");

  const Result bad = mote(
      "demo --firmware-dir '" + fake_firmware_dir("fw-bad", "cortex-m55", corrupt).string() + "'",
      tmp("fw-bad-run"));
  EXPECT_EQ(bad.status, 1);
  EXPECT_THAT(bad.out, HasSubstr("firmware     FAILED on QEMU mps3-an547: exit status 2: error: "));
  EXPECT_THAT(bad.err, HasSubstr("the firmware run on cortex-m55 failed"));
}

// With the firmware build's keyword-spotting runners, the demo runs the model on both emulated
// CPUs and the device's outputs equal the host's.
TEST_F(DemoCli, RunsTheModelOnBothEmulatedCpus) {
  for (const char* cpu : {"cortex-m55", "cortex-m4"}) {
    if (!fs::exists(fs::path(MOTE_BINARY_DIR) / ("firmware-" + std::string(cpu)) /
                    "run_kws_dscnn_like.elf")) {
      GTEST_SKIP() << "this build has no keyword-spotting runner for " << cpu;
    }
  }
  const Result r =
      mote("demo --firmware-dir '" + std::string(MOTE_BINARY_DIR) + "'", tmp("fw-real"));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("firmware     ok on QEMU mps3-an547 (run_kws_dscnn_like.elf), "
                               "outputs equal this host run's byte for byte"));
  EXPECT_THAT(r.out, HasSubstr("firmware     ok on QEMU mps2-an386 (run_kws_dscnn_like.elf), "
                               "outputs equal this host run's byte for byte"));
  const json report = json::parse(read_text(tmp("fw-real") / "demo-report.json"));
  for (const json& target : report["targets"]) {
    const json& firmware = target["firmware"];
    EXPECT_EQ(firmware["state"], "ok");
    EXPECT_EQ(firmware["outputs_hex"], target["host_run"]["outputs_hex"]);
    EXPECT_GT(firmware["instructions"].get<uint64_t>(), 0u);
    // The device's own memory status: the same plan, 32-bit runtime state, no temp allocator.
    const auto& lines = firmware["memory_status"];
    const std::string arena =
        "I mote: arena_planned: " +
        std::to_string(target["host_run"]["arena_planned"].get<uint64_t>()) + " bytes";
    bool temp_zero = false, arena_same = false;
    for (const auto& line : lines) {
      const std::string text = line;
      temp_zero |= text == "I mote: temp_allocator: 0 bytes";
      arena_same |= text.starts_with(arena);
    }
    EXPECT_TRUE(temp_zero);
    EXPECT_TRUE(arena_same);
  }
}

TEST(MoteHelp, EverySubcommandExplainsItselfWithAnExample) {
  const Result top = mote("--help", tmp("help"));
  ASSERT_EQ(top.status, 0);
  // Subcommand names from the top-level help ("Subcommands:" then "  name  description").
  std::stringstream lines(top.out);
  std::string line;
  bool in_list = false;
  std::vector<std::string> names;
  while (std::getline(lines, line)) {
    if (line.starts_with("Subcommands:")) {
      in_list = true;
      continue;
    }
    if (in_list && line.size() > 2 && line[0] == ' ' && line[1] == ' ' && line[2] != ' ') {
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
  }
  EXPECT_THAT(names, ::testing::IsSupersetOf({"inspect", "plan", "compile", "run", "demo"}));
  for (const std::string& name : names) {
    const Result help = mote(name + " --help", tmp("help"));
    EXPECT_EQ(help.status, 0) << name;
    EXPECT_THAT(help.out, HasSubstr("Example")) << name;
    EXPECT_THAT(help.out, HasSubstr("mote " + name)) << name;
  }
}


// Errors name the file and, for a bad operator, its index and type, whichever command meets them.
TEST(MoteErrors, NameTheFileAndTheOperator) {
  ir::Graph graph = builder::kws_dscnn_like();
  // Operator 0 (CONV_2D) with stride 1 no longer produces its 25x5 output.
  std::get<ir::Conv2DOptions>(graph.operators[0].options).stride_h = 1;
  const fs::path dir = tmp("errors");
  fs::create_directories(dir);
  const std::vector<uint8_t> bytes = builder::write_model(graph);
  std::ofstream(dir / "broken.tflite", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  for (const std::string command :
       {"inspect broken.tflite", "plan broken.tflite --target cortex-m4",
        "compile broken.tflite --target cortex-m55 -o broken.mote"}) {
    const Result r = mote(command, dir);
    EXPECT_EQ(r.status, 2) << command;
    EXPECT_THAT(r.err, ::testing::StartsWith("error: broken.tflite: operator 0 (CONV_2D): "))
        << command;
  }
  EXPECT_FALSE(fs::exists(dir / "broken.mote"));
  fs::remove_all(tmp(""));
}

}  // namespace
}  // namespace mote
