// Every `mote` command that writes, as a user runs it: device nodes, FIFOs and symbolic links
// survive, full devices and full stdout fail with the path and the reason, a failed command
// leaves no file; shared options are checked the same way in every command; messages say what
// to do.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"

namespace mote {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

using Result = cli_testing::CliResult;
using cli_testing::read_text;

class OutputCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(MOTE_TEST_TMP_DIR) /
           (std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const std::vector<uint8_t> bytes = builder::write_model(builder::conv2d_x3());
    std::ofstream(dir_ / "m.tflite", std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `mote ARGS` in the test's folder; `redirect` replaces the capture of stdout (e.g.
  // "> /dev/full").
  Result mote(const std::string& args, const std::string& redirect = "") const {
    return cli_testing::run_mote(MOTE_CLI, args, dir_, redirect);
  }

  // The folder's entries besides the model, sorted.
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      if (name != "m.tflite") names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
};

const std::string kFull = std::string("cannot write: ") + std::strerror(ENOSPC);

// Every option that writes a file, with what a command needs around it.
const std::vector<std::string> kFileOptions = {
    "compile m.tflite -o OUT",          "compile m.tflite -o m.mote --svg OUT",
    "compile m.tflite -o m.mote --json OUT", "compile m.tflite -o m.mote --report OUT",
    "plan m.tflite --json OUT",         "plan m.tflite --svg OUT",
    "plan m.tflite --write-csv OUT",    "inspect m.tflite --json OUT",
    "run m.mote --output OUT",
};

std::string with(std::string command, const std::string& out) {
  command.replace(command.find("OUT"), 3, out);
  return command;
}

TEST_F(OutputCli, ADeviceNodeStaysADeviceAfterEveryOption) {
  if (geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  ASSERT_EQ(mote("compile m.tflite -o m.mote").status, 0);
  const fs::path node = dir_ / "null";
  ASSERT_EQ(mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0) << std::strerror(errno);
  for (const std::string& option : kFileOptions) {
    const Result r = mote(with(option, "null"));
    EXPECT_EQ(r.status, 0) << option << ": " << r.err;
    EXPECT_TRUE(fs::is_character_file(node)) << option;
  }
  EXPECT_EQ(files(), (std::vector<std::string>{"m.mote", "null"}));  // no temporary left
}

TEST_F(OutputCli, ASymbolicLinksTargetIsWrittenAndTheLinkStays) {
  ASSERT_EQ(mote("compile m.tflite -o m.mote").status, 0);
  fs::create_directories(dir_ / "real");
  for (const std::string& option : kFileOptions) {
    fs::remove(dir_ / "real" / "target");
    fs::remove(dir_ / "link");
    std::ofstream(dir_ / "real" / "target") << "old";
    fs::create_symlink("real/target", dir_ / "link");
    const Result r = mote(with(option, "link"));
    EXPECT_EQ(r.status, 0) << option << ": " << r.err;
    EXPECT_TRUE(fs::is_symlink(dir_ / "link")) << option;
    EXPECT_NE(read_text(dir_ / "real" / "target"), "old") << option;
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "real"), fs::directory_iterator()), 1)
        << option;
  }
}

TEST_F(OutputCli, AFullDeviceFailsEveryOptionWithThePathAndTheReason) {
  ASSERT_EQ(mote("compile m.tflite -o m.mote").status, 0);
  for (const std::string& option : kFileOptions) {
    const Result r = mote(with(option, "/dev/full"));
    EXPECT_NE(r.status, 0) << option;
    EXPECT_THAT(r.err, HasSubstr("error: /dev/full: " + kFull)) << option;
    EXPECT_TRUE(fs::is_character_file("/dev/full"));
  }
  EXPECT_EQ(files(), (std::vector<std::string>{"m.mote"}));
}

TEST_F(OutputCli, AFullStdoutFailsEveryCommandThatPrints) {
  ASSERT_EQ(mote("compile m.tflite -o m.mote").status, 0);
  for (const std::string command :
       {"inspect m.tflite", "inspect m.tflite --json -", "inspect --json m.tflite",
        "plan m.tflite", "plan m.tflite --json -", "compile m.tflite -o again.mote",
        "compile m.tflite -o -", "run m.mote", "run m.mote --output -",
        "demo --no-firmware --output-dir demo"}) {
    const Result r = mote(command, "> /dev/full");
    EXPECT_NE(r.status, 0) << command;
    EXPECT_THAT(r.err, HasSubstr("error: standard output: " + kFull)) << command;
  }
  // Nothing written when the report could not be shown (the demo made its folder only).
  EXPECT_TRUE(fs::is_empty(dir_ / "demo"));
  fs::remove(dir_ / "demo");
  EXPECT_EQ(files(), (std::vector<std::string>{"m.mote"}));
}

TEST_F(OutputCli, AFailedCommandLeavesNoneOfItsFiles) {
  // The program cannot be written: the report and the picture are not left behind.
  Result r = mote("compile m.tflite -o /dev/full --json r.json --svg p.svg");
  EXPECT_NE(r.status, 0);
  r = mote("compile m.tflite -o /dev/full --report r.json");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(files(), std::vector<std::string>{});
  // A folder in the way is refused, by name.
  fs::create_directories(dir_ / "folder");
  r = mote("compile m.tflite -o folder --json r.json");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("error: folder: cannot write: is a directory"));
  r = mote("plan m.tflite --svg p.svg --write-csv folder");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(files(), std::vector<std::string>{"folder"});
}

TEST_F(OutputCli, AlignIsAUsageErrorWithTheRangeInEveryCommand) {
  for (const std::string command : {"compile m.tflite --align 8", "plan m.tflite --align 8",
                                    "compile m.tflite --align 8192", "plan m.tflite --align 24",
                                    "plan m.tflite --align x"}) {
    const Result r = mote(command);
    EXPECT_EQ(r.status, 2) << command;
    EXPECT_THAT(r.err, HasSubstr("is not a power of two in [16, 4096]")) << command;
    EXPECT_THAT(r.err, Not(HasSubstr("internal error"))) << command;
  }
  EXPECT_EQ(mote("compile m.tflite --align 32").status, 0);
  EXPECT_EQ(mote("plan m.tflite --align 4096").status, 0);
}

TEST_F(OutputCli, TargetsAreExactNamesWithASuggestion) {
  for (const std::string command : {"compile", "plan"}) {
    for (const std::string bad : {"m4", "M4", "cortex-M4", "cortex-m4f"}) {
      const Result r = mote(command + " m.tflite --target " + bad);
      EXPECT_EQ(r.status, 2) << command << " " << bad;
      EXPECT_THAT(r.err, HasSubstr("'" + bad + "' is not a target; did you mean cortex-m4? "
                                   "Targets: cortex-m0, cortex-m0plus, cortex-m3, cortex-m23, "
                                   "cortex-m4, cortex-m7, cortex-m33, cortex-m35p, cortex-m55, "
                                   "cortex-m85"));
    }
    EXPECT_THAT(mote(command + " m.tflite --target m55").err, HasSubstr("did you mean cortex-m55?"));
    EXPECT_EQ(mote(command + " m.tflite --target cortex-m4").status, 0);
  }
}

// The program a user ships can be analyzed and validated as it was compiled: every planning
// option of `compile` is one of `analyze` and `validate` too, with the same effect.
TEST_F(OutputCli, AnalyzeAndValidateTakeEveryPlanningOptionOfCompile) {
  const std::vector<uint8_t> bytes = builder::write_model(builder::kws_dscnn_like());
  std::ofstream(dir_ / "kws.tflite", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  for (const std::string option :
       {"--stream", "--optimize time", "--no-in-place", "--no-overlap", "--order model", "--align 32",
        "--algorithm best-fit", "--time-limit-ms 100", "--inputs-outside-arena", "--keep-names"}) {
    const Result compile = mote("compile kws.tflite --target cortex-m4 -o kws.mote --json c.json " + option);
    const Result analyze = mote("analyze kws.tflite --target cortex-m4 --json a.json " + option);
    ASSERT_EQ(compile.status, 0) << option << ": " << compile.err;
    ASSERT_EQ(analyze.status, 0) << option << ": " << analyze.err;
    const auto compiled = nlohmann::json::parse(read_text(dir_ / "c.json"));
    const auto analyzed = nlohmann::json::parse(read_text(dir_ / "a.json"));
    nlohmann::json chosen;
    for (const auto& result : compiled["results"]) {
      if (result["algorithm"] == compiled["plan"]["algorithm"]) chosen = result;
    }
    EXPECT_EQ(analyzed["totals"]["arena_bytes"], chosen["arena_bytes"]) << option;
    EXPECT_EQ(analyzed["totals"]["program_bytes"], compiled["program"]["bytes"]) << option;
    // Parsed (the missing runner is what stops it), not refused as an unknown option.
    const Result validate =
        mote("validate kws.tflite --target cortex-m4 --runner missing.elf " + option);
    EXPECT_EQ(validate.status, 2) << option;
    EXPECT_THAT(validate.err, HasSubstr("missing.elf")) << option << ": " << validate.err;
  }
  // The options change the plan, so the comparison above means something.
  const Result plain = mote("analyze kws.tflite --target cortex-m4 --json p.json --optimize time");
  const Result streamed = mote("analyze kws.tflite --target cortex-m4 --json s.json --stream");
  ASSERT_EQ(plain.status, 0);
  ASSERT_EQ(streamed.status, 0);
  EXPECT_LT(nlohmann::json::parse(read_text(dir_ / "s.json"))["totals"]["arena_bytes"],
            nlohmann::json::parse(read_text(dir_ / "p.json"))["totals"]["arena_bytes"]);
}

TEST_F(OutputCli, EveryParseErrorStartsWithErrorAndNamesAnUnknownOptionFirst) {
  // Before the missing model: the option the user mistyped is what to fix.
  Result r = mote("compile --bogus");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: unknown option --bogus\nRun `mote compile --help` for the options.\n");
  r = mote("plan m.tflite --target cortex-m4 --bogus=3");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: unknown option --bogus\nRun `mote plan --help` for the options.\n");
  r = mote("--bogus");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: unknown option --bogus\nRun `mote --help` for the options.\n");
  r = mote("bogus m.tflite");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: unknown command 'bogus'; the commands: inspect, plan, compile, run, "
                   "analyze, validate, demo\nRun `mote --help` for the options.\n");
  // Known options keep CLI11's own reason, with the prefix.
  r = mote("compile");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, ::testing::StartsWith("error: model is required"));
  // A value that looks like an option is a value ("-" is stdout).
  EXPECT_EQ(mote("inspect m.tflite --json -").status, 0);
}

TEST_F(OutputCli, RepeatZeroGivesASaneRange) {
  ASSERT_EQ(mote("compile m.tflite -o m.mote").status, 0);
  const Result r = mote("run m.mote --repeat 0");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("--repeat: Value 0 not in range 1 to 1000000"));
  EXPECT_LT(r.err.size(), 200u);
}

TEST_F(OutputCli, RunningATfliteModelSaysToCompileItFirst) {
  const Result r = mote("run m.tflite");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "error: m.tflite: a .tflite model, not a .mote program; compile it first: "
            "mote compile m.tflite -o m.mote && mote run m.mote\n");
}

TEST_F(OutputCli, JsonIsOneConventionAndTheOldSpellingsStillWork) {
  ASSERT_EQ(mote("inspect m.tflite --json i.json").status, 0);
  const Result old_switch = mote("inspect --json m.tflite");
  ASSERT_EQ(old_switch.status, 0) << old_switch.err;
  EXPECT_EQ(nlohmann::json::parse(old_switch.out), nlohmann::json::parse(read_text(dir_ / "i.json")));
  const Result on_stdout = mote("inspect m.tflite --json -");
  EXPECT_EQ(nlohmann::json::parse(on_stdout.out), nlohmann::json::parse(read_text(dir_ / "i.json")));
  EXPECT_EQ(nlohmann::json::parse(mote("inspect m.tflite --json").out)["operators"].size(), 5u);

  ASSERT_EQ(mote("compile m.tflite -o a.mote --json a.json").status, 0);
  ASSERT_EQ(mote("compile m.tflite -o b.mote --report b.json").status, 0);
  const nlohmann::json a = nlohmann::json::parse(read_text(dir_ / "a.json"));
  const nlohmann::json b = nlohmann::json::parse(read_text(dir_ / "b.json"));
  EXPECT_EQ(a["lower_bound_bytes"], b["lower_bound_bytes"]);
  const Result compile_stdout = mote("compile m.tflite -o c.mote --json -");
  EXPECT_EQ(nlohmann::json::parse(compile_stdout.out)["program"]["file"], "c.mote");
  EXPECT_THAT(compile_stdout.err, HasSubstr("mote: m.tflite -> c.mote"));  // summary on stderr
  EXPECT_EQ(mote("compile m.tflite --json x.json --report y.json").status, 2);

  // --help documents the convention and the old spellings.
  EXPECT_THAT(mote("inspect --help").out, HasSubstr("old switch"));
  const std::string help = mote("compile --help").out;
  EXPECT_THAT(help, HasSubstr("--json"));
  EXPECT_THAT(help, HasSubstr("Old spelling of --json FILE"));
}

}  // namespace
}  // namespace mote
