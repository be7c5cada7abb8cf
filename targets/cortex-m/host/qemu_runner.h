#pragma once
// Running Cortex-M firmware under QEMU from host tools (`mote demo`, and any command that wants a
// result from the emulated CPU): which QEMU machine a CPU has, where the firmware build put a
// runner image, one run with a timeout, and what the runner (targets/cortex-m/runner) printed.
// targets/cortex-m/run-qemu.sh is the same run for scripts and ctest.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mote::cortex_m {

// QEMU's machine for each CPU Mote builds firmware for (cmake/boards.cmake), by canonical CPU
// name ("cortex-m55" -> "mps3-an547"); nullopt for a CPU without one.
std::optional<std::string> qemu_board(std::string_view cpu);

// qemu-system-arm on PATH, if it is installed.
std::optional<std::filesystem::path> find_qemu();

// The firmware build's runner image for a model built into it (targets/cortex-m/cross):
// <firmware dir>/firmware-<cpu>/run_<model>.elf, or runner_<model>.elf there, or else the first
// (by name) runner*.elf there whose name holds every '_'-separated word of `model` (test images).
std::optional<std::filesystem::path> find_runner_image(const std::filesystem::path& firmware_dir,
                                                       std::string_view cpu,
                                                       std::string_view model);
// Where find_runner_image looks first: what to name when there is none.
std::filesystem::path expected_runner_image(const std::filesystem::path& firmware_dir,
                                            std::string_view cpu, std::string_view model);

inline constexpr int kTimedOut = 124;  // the exit status of a run stopped by its timeout

struct QemuRun {
  // The firmware's exit status (semihosting SYS_EXIT), kTimedOut when the run was stopped, -1 when
  // QEMU did not exit normally.
  int exit_status = -1;
  std::string output;  // what the firmware printed, with QEMU's own messages
};

// Runs `image` on QEMU machine `board` with semihosting (its command line is the image's file
// name) and -icount shift=0, so the runner's SysTick counts instructions; stops it after
// `timeout_seconds`. nullopt if QEMU could not be started. A non-empty `working_dir` is QEMU's
// working directory, where the firmware's semihosting file names are resolved.
std::optional<QemuRun> run_qemu(const std::filesystem::path& qemu, std::string_view board,
                                const std::filesystem::path& image, int timeout_seconds,
                                const std::filesystem::path& working_dir = {});

// What a firmware runner reports on its output (targets/cortex-m/runner/runner_main.cc).
struct RunnerOutput {
  std::vector<std::string> memory_lines;  // "I mote: ..." as printed
  std::vector<std::string> outputs_hex;   // "output <i> <hex>": the hex part, per output
  std::optional<uint64_t> instructions;
  std::optional<uint64_t> static_ram;
  std::optional<uint64_t> stack_peak;
  std::optional<uint64_t> arena_planned;
  bool outputs_match_expected = false;    // the runner's own check against the built-in outputs
  std::string error_line;                 // the first "error: " or "fault: " line, if any
};

RunnerOutput parse_runner_output(std::string_view output);

// The folder of the running executable (where Mote's build puts `mote` and the firmware-<cpu>/
// folders); the working directory if unknown.
std::filesystem::path executable_dir();

// The generic runner of `mote validate` and `mote analyze --measure` (runner/validate_main.cc):
// <firmware dir>/firmware-<cpu>/validate_runner.elf. It reads program.mote and input.bin from
// its working directory and writes layers.bin there.
std::filesystem::path generic_runner_image(const std::filesystem::path& firmware_dir,
                                           std::string_view cpu);

// The folders that may hold the firmware-<cpu>/ folders of runner images, in the order the
// commands look: `firmware_dir` alone when given (--firmware-dir), else the build folder (the
// executable's own) and the installed one, <prefix>/lib/mote/firmware beside <prefix>/bin
// (cmake/mote_install.cmake puts them there).
std::vector<std::filesystem::path> firmware_dirs(const std::filesystem::path& firmware_dir = {});

// Where a runner image was looked for, and what was found.
struct RunnerSearch {
  std::optional<std::filesystem::path> image;
  std::vector<std::filesystem::path> looked_at;  // the paths tried, in order
};
// The generic runner for `cpu` in the first of firmware_dirs(firmware_dir) that has one.
RunnerSearch find_generic_runner(std::string_view cpu, const std::filesystem::path& firmware_dir = {});
// A model's runner image (find_runner_image) in the first of firmware_dirs(firmware_dir).
RunnerSearch find_model_runner(std::string_view cpu, std::string_view model,
                               const std::filesystem::path& firmware_dir = {});

// Why `cpu` has no runner image and what to do: where it looked, and, from what this Mote was
// built with (-DMOTE_FIRMWARE_CPUS), whether to install or give the images or to rebuild.
std::string missing_runner_reason(std::string_view cpu, const RunnerSearch& search);

// Per operator, from the "I mote: op <i> <kind>: <n> instructions" lines, in operator order;
// empty when a line is missing or out of order.
std::vector<uint64_t> parse_operator_instructions(std::string_view output);

}  // namespace mote::cortex_m
