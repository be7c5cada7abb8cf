#include "tools/options.h"

#include <algorithm>
#include <cctype>

#include "compiler/ir/error.h"
#include "targets/cortex-m/host/qemu_runner.h"

namespace mote::tools {

const std::vector<std::string>& target_names() {
  // Grouped by kernel extension: scalar, DSP, MVE (target::extension_for_cpu).
  static const std::vector<std::string> names = {
      "cortex-m0", "cortex-m0plus", "cortex-m3",  "cortex-m23",  "cortex-m4",
      "cortex-m7", "cortex-m33",    "cortex-m35p", "cortex-m55", "cortex-m85"};
  return names;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string check_target(const std::string& name) {
  const auto& names = target_names();
  if (std::find(names.begin(), names.end(), name) != names.end()) return "";
  // Nearest by edit distance, ignoring case and the "cortex-" prefix people leave out.
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string* nearest = &names.front();
  size_t best = SIZE_MAX;
  for (const std::string& candidate : names) {
    const size_t d = std::min(edit_distance(lower, candidate),
                              edit_distance(lower, std::string_view(candidate).substr(7)));
    if (d < best) {
      best = d;
      nearest = &candidate;
    }
  }
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return "'" + name + "' is not a target; did you mean " + *nearest + "? Targets: " + list;
}

std::string check_align(const std::string& text) {
  const std::string allowed = " is not a power of two in [16, 4096]";
  if (text.empty() || text.size() > 5 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return "'" + text + "'" + allowed;
  }
  const unsigned long value = std::stoul(text);
  if (value < 16 || value > 4096 || (value & (value - 1)) != 0) return text + allowed;
  return "";
}

CLI::Option* add_target_option(CLI::App* cmd, std::string& target, const std::string& what) {
  std::string list;
  for (const std::string& n : target_names()) list += (list.empty() ? "" : ", ") + n;
  return cmd->add_option("--target", target, what + ": " + list)
      ->check(CLI::Validator(check_target, "CPU"))
      ->capture_default_str();
}

std::string default_target_note(const CLI::Option* target) {
  return target != nullptr && target->count() > 0 ? "" : " (the default; choose with --target)";
}

CLI::Option* add_align_option(CLI::App* cmd, uint32_t& align, const std::string& what) {
  return cmd->add_option("--align", align, what + "; a power of two in [16, 4096]")
      ->check(CLI::Validator(check_align, "BYTES"))
      ->capture_default_str();
}

CLI::Option* add_algorithm_option(CLI::App* cmd, std::string& algorithm) {
  std::vector<std::string> names;
  for (planner::Algorithm a : planner::kAllAlgorithms) names.emplace_back(planner::to_string(a));
  return cmd->add_option("--algorithm", algorithm,
                         "Placement: naive, first-fit (TensorFlow Lite Micro's rule), best-fit, "
                         "chain-fit (each chain of outputs over dying inputs placed as one unit), "
                         "exact (branch and bound), or auto (the greedy ones, chain-fit where "
                         "outputs may overlap, then exact seeded with the best)")
      ->check(CLI::IsMember(names))
      ->capture_default_str();
}

CLI::Option* add_order_option(CLI::App* cmd, std::string& order) {
  return cmd->add_option("--order", order,
                         "Operator order: search (a model with branches runs in the topological "
                         "order whose plan is smallest: every order when there are few, a "
                         "budgeted search beyond; the report says what it saved) or model (the "
                         "order as written). A chain has one order either way")
      ->check(CLI::IsMember({"search", "model"}))
      ->capture_default_str();
}

CLI::Option* add_time_limit_option(CLI::App* cmd, double& time_limit_ms, const std::string& what) {
  return cmd->add_option("--time-limit-ms", time_limit_ms, what)
      ->check(CLI::Range(0.0, 3600.0 * 1000))
      ->capture_default_str();
}

CLI::Option* add_inputs_outside_arena_flag(CLI::App* cmd, bool& outside) {
  return cmd->add_flag(
      "--inputs-outside-arena", outside,
      "Plan no arena bytes for the graph inputs: the program reads each from a buffer the\n"
      "caller binds before running (Executor::bind_input, mote_bind_input), e.g. a camera frame\n"
      "or DMA buffer, and never writes it. The arena shrinks; the report prices the inputs\n"
      "apart. Without it an input sits in the arena and a run may overwrite it");
}

CLI::Option* add_float_inputs_option(CLI::App* cmd, bool& quantize) {
  return cmd
      ->add_option_function<std::string>(
          "--float-inputs", [&quantize](const std::string& how) { quantize = how == "quantized"; },
          "A float32 graph input whose only reader is a QUANTIZE (a float camera or feature\n"
          "input before an int8 network): quantized (the default) holds it in the arena as that\n"
          "QUANTIZE's int8 (int16) output, a quarter (half) of the bytes, and leaves the QUANTIZE\n"
          "out; write the floats with Executor::write_input or mote_write_input_float, which\n"
          "quantize them exactly as it would (a row at a time if you like), or write the int8\n"
          "bytes yourself. float keeps the float input in the arena and the QUANTIZE in the\n"
          "program. Inputs outside the arena stay float (the caller's buffer)")
      ->check(CLI::IsMember({"quantized", "float"}))
      ->default_str("quantized");
}

CLI::Option* add_optimize_options(CLI::App* cmd, std::string& preset) {
  CLI::Option* optimize =
      cmd->add_option(
             "--optimize", preset,
             "What the plan trades, as X-CUBE-AI's presets: balanced takes a\n"
             "smaller arena where it costs at most 5 % more instructions on the target CPU, as\n"
             "estimated from the kernels' measured costs (targets/cortex-m/instruction_costs.tsv;\n"
             "on a CPU without measurements it takes none): row-streamed stages, in-place\n"
             "depthwise kernels; ram takes the smallest arena whatever it costs; time takes\n"
             "nothing that costs instructions. The report says what was chosen and its cost")
          ->check(CLI::IsMember({"time", "balanced", "ram"}))
          ->capture_default_str();
  CLI::Option* stream = cmd->add_flag_callback(
      "--stream", [&preset] { preset = "ram"; },
      "The same as --optimize ram: run runs of operators that compute a few output rows at a\n"
      "time (convolutions, pools, additions, SiLU's LOGISTIC and MUL, PRELU, PAD, MAXIMUM,\n"
      "MINIMUM, requantizations, operations by a constant per channel, concatenations along\n"
      "channels or width, nearest-neighbour upsampling by an integer factor, bilinear resizes)\n"
      "as row-streamed stages, their inner tensors held as rings of rows, where that gives a\n"
      "smaller arena; same results, on the CPU's own row kernels\n"
      "(bench/firmware_instructions.md prices them)");
  CLI::Option* no_stream = cmd->add_flag_callback(
      "--no-stream", [&preset] { preset = "time"; }, "The same as --optimize time");
  optimize->excludes(stream)->excludes(no_stream);
  stream->excludes(optimize)->excludes(no_stream);
  no_stream->excludes(optimize)->excludes(stream);
  return optimize;
}

void apply_optimize(const std::string& preset, pipeline::PlanRequest& request) {
  pipeline::apply_optimize(*pipeline::optimize_from_string(preset), request);
}

CLI::Option* add_no_overlap_flag(CLI::App* cmd, bool& overlap) {
  return cmd->add_flag("--no-overlap{false}", overlap,
                       "Keep every operator's output apart from its inputs (no overlap rules)");
}

CLI::Option* add_no_in_place_flag(CLI::App* cmd, bool& in_place) {
  return cmd->add_flag("--no-in-place{false}", in_place,
                       "Never run a depthwise convolution in place (one channel plane at a time\n"
                       "through scratch), which the plan otherwise does where it saves bytes\n"
                       "(not on Helium); the arena may grow, the kernels stay the fastest");
}

pipeline::CompileOptions PlanningSettings::resolved() const {
  pipeline::CompileOptions out = options;
  out.plan.algorithm = *planner::algorithm_from_string(algorithm);
  out.plan.order = *pipeline::order_from_string(order);
  apply_optimize(optimize, out.plan);
  return out;
}

std::string check_program_target(const std::string& path, const schema::ProgramT& program,
                                 const PlanningSettings& planning) {
  const std::string cpu = program.target ? program.target->cpu : "";
  if (planning.target_given() && cpu != planning.options.plan.cpu) {
    throw InputError(path + ": a program compiled for " + cpu + ", not --target " +
                     planning.options.plan.cpu + "; leave out --target, or compile the model "
                     "again with --target " + planning.options.plan.cpu);
  }
  for (const CLI::Option* option : planning.compile_options) {
    if (option->count() == 0) continue;
    throw InputError(path + ": " + option->get_name() + " shapes how a model compiles, and a .mote "
                     "program is already compiled; give the model with " + option->get_name() +
                     ", or leave it out");
  }
  return cpu;
}

std::string optimize_summary(const std::string& preset, const pipeline::PlannedGraph& planned,
                             const pipeline::PlanRequest& request) {
  std::string out = preset;
  if (!planned.stages.empty()) {
    size_t calls = 0;
    out += ": operators ";
    for (size_t k = 0; k < planned.stages.size(); ++k) {
      const passes::RowStage& stage = planned.stages[k];
      out += (k == 0 ? "" : ", ") + std::to_string(stage.first) + "-" + std::to_string(stage.last);
      calls += stage.schedule.size();
    }
    out += " stream (" + std::to_string(calls) + " row calls; " +
           planner::grouped(planned.unstreamed_arena) + " bytes without)";
  } else if (request.stream) {
    out += ": nothing streams";
  }
  const std::string cost = pipeline::cost_sentence(planned, request);
  return cost.empty() ? out : out + "; " + cost;
}

void add_planning_options(CLI::App* cmd, PlanningSettings& s, const std::string& target_help) {
  const size_t first = cmd->get_options().size();
  s.target_option = add_target_option(cmd, s.options.plan.cpu, target_help);
  add_algorithm_option(cmd, s.algorithm);
  add_order_option(cmd, s.order);
  add_align_option(cmd, s.options.plan.alignment, "Alignment of every buffer, in bytes");
  add_time_limit_option(cmd, s.options.plan.time_limit_ms, "Time budget of the exact search");
  add_no_overlap_flag(cmd, s.options.plan.overlap);
  add_no_in_place_flag(cmd, s.options.plan.in_place);
  add_inputs_outside_arena_flag(cmd, s.options.plan.inputs_outside_arena);
  add_float_inputs_option(cmd, s.options.plan.quantize_float_inputs);
  add_optimize_options(cmd, s.optimize);
  cmd->add_flag("--keep-names", s.options.keep_names,
                "Keep tensor names in the program (costs flash; helps debugging)");
  cmd->add_flag("--checksum", s.options.checksum,
                "Record a CRC-32 of the constants (a few bytes of flash): the runtime then refuses\n"
                "corrupted weights at load (MOTE_CORRUPT_CONSTANTS) instead of running them");
  const std::vector<CLI::Option*> all = cmd->get_options();
  for (size_t k = first; k < all.size(); ++k) {
    if (all[k] != s.target_option) s.compile_options.push_back(all[k]);
  }
}

CLI::Option* add_json_option(CLI::App* cmd, std::string& path, const std::string& what) {
  return cmd->add_option("--json", path, what + " to FILE, or - (or --json alone) for stdout")
      ->expected(0, 1)
      ->default_str("-");
}

void add_import_options(CLI::App* cmd, import::ImportOptions& import) {
  auto layout = [](bool& nhwc) {
    return [&nhwc](const std::string& v) {
      nhwc = v == "nhwc";
      return std::string();
    };
  };
  cmd->add_option_function<std::string>(
         "--input-layout", layout(import.input_nhwc),
         ".onnx: the layout the program's 4-D inputs take: nchw (the model's own, the default:\n"
         "a transpose starts the program, or a free reshape where C or H*W is 1) or nhwc\n"
         "(the kernels' own: no transpose, the caller feeds NHWC)")
      ->check(CLI::IsMember({"nchw", "nhwc"}));
  cmd->add_option_function<std::string>(
         "--output-layout", layout(import.output_nhwc),
         ".onnx: the layout of the program's 4-D outputs: nchw (the model's, the default) or nhwc")
      ->check(CLI::IsMember({"nchw", "nhwc"}));
  cmd->add_option_function<std::vector<std::string>>(
      "--input-shape",
      [&import](const std::vector<std::string>& shapes) {
        for (const std::string& text : shapes) {
          const size_t eq = text.find('=');
          std::pair<std::string, std::vector<int32_t>> given;
          given.first = eq == std::string::npos ? "" : text.substr(0, eq);
          std::string dims = eq == std::string::npos ? text : text.substr(eq + 1);
          size_t start = 0;
          while (start <= dims.size()) {
            const size_t comma = dims.find(',', start);
            const std::string d = dims.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            if (d.empty() || d.size() > 9 || d.find_first_not_of("0123456789") != std::string::npos || std::stoi(d) < 1) {
              throw CLI::ValidationError("--input-shape", "'" + text + "' is not NAME=D,D,... (positive sizes)");
            }
            given.second.push_back(std::stoi(d));
            if (comma == std::string::npos) break;
            start = comma + 1;
          }
          import.input_shapes.push_back(std::move(given));
        }
      },
      ".onnx: fixed sizes for an input with symbolic dimensions, NAME=1,3,96,96 (NAME= may be\n"
      "left out when the model has one input); repeat it for several inputs");
  cmd->add_option_function<std::string>(
         "--rounding",
         [&import](const std::string& v) { import.tflite_rounding = v == "tflite"; },
         ".onnx: how requantizations round: once (the default: a ratio's multiplier rounds the\n"
         "result once, as ONNX Runtime's float arithmetic does) or tflite (TFLite's fixed-point\n"
         "double rounding, the results of the same graph read from .tflite)")
      ->check(CLI::IsMember({"once", "tflite"}));
}

std::filesystem::path RunnerSettings::image(const std::string& cpu) const {
  namespace fs = std::filesystem;
  if (!runner.empty()) {
    if (!fs::is_regular_file(runner)) {
      throw InputError(runner + ": no runner image for " + cpu + " (--runner names no file)");
    }
    return fs::absolute(runner);
  }
  const cortex_m::RunnerSearch search = cortex_m::find_generic_runner(cpu, firmware_dir);
  if (!search.image) {
    throw InputError(cortex_m::missing_runner_reason(cpu, search) + "; or give --runner IMAGE");
  }
  return fs::absolute(*search.image);
}

void add_runner_options(CLI::App* cmd, RunnerSettings& s, const std::string& when) {
  cmd->add_option("--runner", s.runner, when + "the runner image (default: from --firmware-dir)");
  cmd->add_option("--firmware-dir", s.firmware_dir,
                  when + "the folder holding firmware-<cpu>/validate_runner.elf (default: the\n"
                  "build folder of this mote, else the install's <prefix>/lib/mote/firmware)");
  cmd->add_option("--timeout", s.timeout_seconds, when + "seconds one QEMU run may take")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
}

}  // namespace mote::tools
