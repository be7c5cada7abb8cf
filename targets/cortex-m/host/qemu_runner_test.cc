#include "qemu_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

namespace mote::cortex_m {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("mote_qemu_runner_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

// A stand-in for qemu-system-arm: a shell script.
fs::path fake_qemu(const fs::path& dir, const std::string& body) {
  const fs::path path = dir / "qemu";
  write_file(path, "#!/bin/sh\n" + body + "\n");
  ::chmod(path.c_str(), 0755);
  return path;
}

TEST(QemuBoard, NamesTheMachineOfEveryFirmwareCpu) {
  EXPECT_EQ(qemu_board("cortex-m55"), "mps3-an547");
  EXPECT_EQ(qemu_board("cortex-m4"), "mps2-an386");
  EXPECT_EQ(qemu_board("cortex-m7"), "mps2-an500");
  EXPECT_EQ(qemu_board("cortex-m33"), "mps2-an505");
  EXPECT_EQ(qemu_board("cortex-m3"), "mps2-an385");
  EXPECT_EQ(qemu_board("cortex-m0plus"), std::nullopt);
}

TEST(FindRunnerImage, PrefersTheFirmwareBuildsNameThenRunnerThenAnyWithTheModelsWords) {
  const fs::path dir = fresh_dir("images");
  const fs::path images = dir / "firmware-cortex-m4";
  fs::create_directories(images);
  EXPECT_EQ(find_runner_image(dir, "cortex-m4", "kws_like"), std::nullopt);
  EXPECT_EQ(find_runner_image(dir, "cortex-m7", "kws_like"), std::nullopt);  // no folder

  write_file(images / "runner_other.elf", "");
  write_file(images / "runner_x_kws_y_like.elf", "");
  EXPECT_EQ(find_runner_image(dir, "cortex-m4", "kws_like"), images / "runner_x_kws_y_like.elf");
  write_file(images / "runner_kws_like.elf", "");
  EXPECT_EQ(find_runner_image(dir, "cortex-m4", "kws_like"), images / "runner_kws_like.elf");
  write_file(images / "run_kws_like.elf", "");
  EXPECT_EQ(find_runner_image(dir, "cortex-m4", "kws_like"), images / "run_kws_like.elf");
  EXPECT_EQ(expected_runner_image(dir, "cortex-m4", "kws_like"), images / "run_kws_like.elf");
}

TEST(FindGenericRunner, LooksInTheBuildFolderThenTheInstallsAndSaysWhere) {
  const fs::path self = executable_dir();
  EXPECT_EQ(firmware_dirs(), (std::vector<fs::path>{
                                 self, (self / ".." / "lib" / "mote" / "firmware").lexically_normal()}));
  const fs::path dir = fresh_dir("generic");
  EXPECT_EQ(firmware_dirs(dir), std::vector<fs::path>{dir});

  RunnerSearch search = find_generic_runner("cortex-m4", dir);
  EXPECT_EQ(search.image, std::nullopt);
  EXPECT_EQ(search.looked_at, std::vector<fs::path>{dir / "firmware-cortex-m4" / "validate_runner.elf"});
  // No build makes firmware for cortex-m85: the reason is to build it, naming the option.
  EXPECT_THAT(missing_runner_reason("cortex-m85", find_generic_runner("cortex-m85", dir)),
              HasSubstr("no runner image for cortex-m85 at " + dir.string() +
                        "/firmware-cortex-m85/validate_runner.elf; build Mote with the firmware for "
                        "it (-DMOTE_BUILD_FIRMWARE=ON -DMOTE_FIRMWARE_CPUS=\""));

  fs::create_directories(dir / "firmware-cortex-m4");
  write_file(dir / "firmware-cortex-m4" / "validate_runner.elf", "");
  search = find_generic_runner("cortex-m4", dir);
  EXPECT_EQ(search.image, dir / "firmware-cortex-m4" / "validate_runner.elf");
}

TEST(FindModelRunner, NamesTheFirmwareBuildsNameWhereItLooked) {
  const fs::path dir = fresh_dir("model");
  const RunnerSearch search = find_model_runner("cortex-m4", "kws_like", dir);
  EXPECT_EQ(search.image, std::nullopt);
  EXPECT_EQ(search.looked_at, std::vector<fs::path>{dir / "firmware-cortex-m4" / "run_kws_like.elf"});
}

TEST(RunQemu, PassesMachineAndImageAndReturnsOutputAndExitStatus) {
  const fs::path dir = fresh_dir("run");
  const fs::path qemu = fake_qemu(dir, "echo \"$@\"; echo to-stderr >&2; exit 3");
  const std::optional<QemuRun> run = run_qemu(qemu, "mps2-an386", dir / "app.elf", 20);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->exit_status, 3);
  EXPECT_THAT(run->output, HasSubstr("-machine mps2-an386 "));
  EXPECT_THAT(run->output, HasSubstr("-icount shift=0"));
  EXPECT_THAT(run->output, HasSubstr("enable=on,target=native,arg=app.elf"));
  EXPECT_THAT(run->output, HasSubstr("-kernel " + (dir / "app.elf").string()));
  EXPECT_THAT(run->output, HasSubstr("to-stderr"));
}

TEST(RunQemu, StopsARunThatDoesNotFinish) {
  const fs::path dir = fresh_dir("hang");
  const std::optional<QemuRun> run = run_qemu(fake_qemu(dir, "exec sleep 30"), "b", "x.elf", 1);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->exit_status, kTimedOut);
}

TEST(ParseRunnerOutput, ReadsMemoryStatusOutputsAndTheFirstError) {
  const RunnerOutput parsed = parse_runner_output(
      "I mote: program_size: 100\n"
      "I mote: arena_planned: 16000\n"
      "I mote: instructions: 1234567\n"
      "I mote: static_ram: 2048\n"
      "I mote: stack_peak: 512\n"
      "I mote: instructions: none\n"
      "output 0 00ff7f\n"
      "outputs match expected\n"
      "error: first\n"
      "fault: second\n");
  EXPECT_EQ(parsed.memory_lines.size(), 6u);
  EXPECT_EQ(parsed.memory_lines[0], "I mote: program_size: 100");
  EXPECT_EQ(parsed.arena_planned, 16000u);
  EXPECT_EQ(parsed.instructions, 1234567u);
  EXPECT_EQ(parsed.static_ram, 2048u);
  EXPECT_EQ(parsed.stack_peak, 512u);
  EXPECT_EQ(parsed.outputs_hex, std::vector<std::string>{"00ff7f"});
  EXPECT_TRUE(parsed.outputs_match_expected);
  EXPECT_EQ(parsed.error_line, "error: first");

  const RunnerOutput empty = parse_runner_output("");
  EXPECT_FALSE(empty.instructions.has_value());
  EXPECT_FALSE(empty.outputs_match_expected);
  EXPECT_TRUE(empty.error_line.empty());
}

TEST(QemuRunnerTest, ParsesOperatorInstructionsInOrder) {
  EXPECT_EQ(parse_operator_instructions("validate: 2 operators\n"
                                        "I mote: op 0 CONV_2D: 1200 instructions\n"
                                        "I mote: instructions: 9\n"
                                        "I mote: op 1 ADD: 40 instructions\n"),
            (std::vector<uint64_t>{1200, 40}));
  EXPECT_TRUE(parse_operator_instructions("I mote: op 1 ADD: 40 instructions\n").empty());
  EXPECT_TRUE(parse_operator_instructions("").empty());
  EXPECT_EQ(generic_runner_image("/b", "cortex-m4"), "/b/firmware-cortex-m4/validate_runner.elf");
}

}  // namespace
}  // namespace mote::cortex_m
