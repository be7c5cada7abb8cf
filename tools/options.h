#pragma once
// Options that several subcommands take, defined and validated once so that every command
// spells, explains and checks them the same way: a bad value is a usage error (exit 2) that says
// what is allowed.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/import/model_file.h"
#include "compiler/pipeline/compile.h"
#include "compiler/planner/planner.h"
#include "mote/schema/mote_generated.h"

namespace mote::tools {

/// The --target names, exactly as accepted.
const std::vector<std::string>& target_names();
/// "" when `name` is a target; else the message: the valid names and the nearest one.
std::string check_target(const std::string& name);
/// "" when `align` is a power of two in [16, 4096]; else the message with the range.
std::string check_align(const std::string& text);

CLI::Option* add_target_option(CLI::App* cmd, std::string& target, const std::string& what);
/// " (the default; choose with --target)" when --target was not given, else "": every command
/// whose result depends on the CPU says so where it names the CPU it used.
std::string default_target_note(const CLI::Option* target);
CLI::Option* add_align_option(CLI::App* cmd, uint32_t& align, const std::string& what);
CLI::Option* add_algorithm_option(CLI::App* cmd, std::string& algorithm);
/// --order search|model (pipeline::order_from_string reads it).
CLI::Option* add_order_option(CLI::App* cmd, std::string& order);
CLI::Option* add_time_limit_option(CLI::App* cmd, double& time_limit_ms, const std::string& what);
/// --inputs-outside-arena, for the commands that plan a model.
CLI::Option* add_inputs_outside_arena_flag(CLI::App* cmd, bool& outside);
/// --float-inputs quantized|float (PlanRequest::quantize_float_inputs).
CLI::Option* add_float_inputs_option(CLI::App* cmd, bool& quantize);
/// --optimize time|balanced|ram (pipeline::Optimize; `preset` keeps its name, kDefaultOptimize
/// when none is given) and its explicit forms --stream (ram) and --no-stream (time); one of the
/// three. Returns --optimize.
CLI::Option* add_optimize_options(CLI::App* cmd, std::string& preset);
/// The preset a command plans with when none is given.
inline constexpr const char* kDefaultOptimize = "balanced";
/// `request` with the preset applied (the name is checked by add_optimize_options).
void apply_optimize(const std::string& preset, pipeline::PlanRequest& request);
/// --json FILE, "-" for stdout; given without a value it means stdout too.
CLI::Option* add_json_option(CLI::App* cmd, std::string& path, const std::string& what);

/// --input-layout, --output-layout and --input-shape: what an ONNX model leaves open.
void add_import_options(CLI::App* cmd, import::ImportOptions& import);
/// How a command that compiles a model plans it. `compile`, `analyze` and `validate` take the
/// same options (add_planning_options), so the program a user ships can be validated and
/// profiled exactly as it was compiled.
struct PlanningSettings {
  pipeline::CompileOptions options;
  std::string algorithm = "auto";
  std::string order = "search";
  std::string optimize = kDefaultOptimize;  // --optimize's preset
  /// `options` with --algorithm, --order and --optimize applied (each checked by its option).
  pipeline::CompileOptions resolved() const;
  CLI::Option* target_option = nullptr;  // set by add_planning_options
  bool target_given() const { return target_option != nullptr && target_option->count() > 0; }
  /// The other options add_planning_options added: how to compile, meaningless for a program.
  std::vector<CLI::Option*> compile_options;
};
/// A .mote program given where a command also takes a model: its CPU. Throws InputError with the
/// fix when --target names another CPU, or when an option that only shapes a compilation was
/// given (the program runs as it was compiled).
std::string check_program_target(const std::string& path, const schema::ProgramT& program,
                                 const PlanningSettings& planning);
/// "balanced: operators 0-9 stream (249 row calls; 8,384 bytes without); instructions: +3.5 %
/// estimated on cortex-m4 ...": the preset and what it chose, for compile, analyze and demo.
std::string optimize_summary(const std::string& preset, const pipeline::PlannedGraph& planned,
                             const pipeline::PlanRequest& request);
/// --target (with `target_help`), --algorithm, --order, --align, --time-limit-ms,
/// --no-overlap, --no-in-place, --inputs-outside-arena, --float-inputs, --optimize (--stream, --no-stream),
/// --keep-names, --checksum.
void add_planning_options(CLI::App* cmd, PlanningSettings& settings, const std::string& target_help);
/// --no-overlap and --no-in-place, which `plan` takes too.
CLI::Option* add_no_overlap_flag(CLI::App* cmd, bool& overlap);
CLI::Option* add_no_in_place_flag(CLI::App* cmd, bool& in_place);

/// --runner, --firmware-dir and --timeout: the CPU's generic runner image that `validate` and
/// `analyze --measure` run under QEMU, and how long a run may take.
struct RunnerSettings {
  std::string runner;        // --runner IMAGE
  std::string firmware_dir;  // --firmware-dir; default: the build's or the install's folder
  int timeout_seconds = 120;
  /// The image for `cpu`, absolute (QEMU runs in a temporary folder): --runner, else
  /// firmware-<cpu>/validate_runner.elf in --firmware-dir, or in the build folder of this mote,
  /// or in the install's <prefix>/lib/mote/firmware. Throws InputError naming where it looked
  /// and what to do.
  std::filesystem::path image(const std::string& cpu) const;
};
/// `when` prefixes the help of each ("--measure: "), for a command that runs QEMU only on request.
void add_runner_options(CLI::App* cmd, RunnerSettings& settings, const std::string& when);

/// The Levenshtein distance, for "did you mean".
size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace mote::tools
