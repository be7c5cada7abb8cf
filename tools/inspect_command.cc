// `mote inspect MODEL.tflite [--json FILE]`: what a model holds, operator by operator.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "compiler/emit/emit.h"
#include "compiler/emit/program_file.h"
#include "compiler/ir/error.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/stats.h"
#include "compiler/onnx/reader.h"
#include "compiler/ops/op_def.h"
#include "compiler/pipeline/analyze.h"
#include "compiler/planner/report.h"
#include "compiler/tflite/reader.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/progress.h"

namespace mote::tools {
namespace {

using ir::Graph;
using ir::Operator;
using ir::Tensor;
using nlohmann::json;

struct InspectOptions {
  std::string model;
  import::ImportOptions import;
  std::string json_path;  // "-": stdout
  bool check = false;     // --check: each operator's verdict instead of the model's contents
};

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// Small int32 constants (shapes, paddings, axes, permutations) are worth showing.
std::vector<int32_t> small_int_values(const Tensor& t) {
  if (!t.is_constant || t.type != ir::DataType::kInt32 || t.num_elements() > 16) return {};
  std::vector<int32_t> v(static_cast<size_t>(t.num_elements()));
  std::memcpy(v.data(), t.data.data(), v.size() * sizeof(int32_t));
  return v;
}

std::string quant_summary(const ir::Quantization& q) {
  if (q.empty()) return "";
  if (!q.per_channel()) {
    return "scale " + format("%.6g", q.scale[0]) + " zp " + std::to_string(q.zero_point[0]);
  }
  const auto [lo, hi] = std::minmax_element(q.scale.begin(), q.scale.end());
  const auto [zlo, zhi] = std::minmax_element(q.zero_point.begin(), q.zero_point.end());
  std::string zp = *zlo == *zhi ? std::to_string(*zlo)
                                 : std::to_string(*zlo) + ".." + std::to_string(*zhi);
  return "per-channel(" + std::to_string(q.scale.size()) + ", dim " +
         std::to_string(q.quantized_dimension) + ") scale " + format("%.4g", *lo) + ".." +
         format("%.4g", *hi) + " zp " + zp;
}

std::string short_name(const std::string& name) {
  constexpr size_t kMax = 48;
  return name.size() <= kMax ? name : name.substr(0, kMax - 3) + "...";
}

std::string tensor_line(const Graph& g, int32_t index) {
  if (index == ir::kNoTensor) return "(none)";
  const Tensor& t = g.tensors[index];
  char head[96];
  std::snprintf(head, sizeof head, "t%-4d %-7s %-16s", index, std::string(to_string(t.type)).c_str(),
                ir::shape_string(t.shape).c_str());
  std::string line = head;
  const std::string q = quant_summary(t.quantization);
  if (!q.empty()) line += " " + q;
  if (t.is_constant) {
    line += "  const " + std::to_string(t.data.size()) + " B";
    const std::vector<int32_t> v = small_int_values(t);
    if (!v.empty()) line += " " + ir::shape_string(v);
  }
  line += "  \"" + short_name(t.name) + "\"";
  return line;
}

// The operator's parameters, as its definition describes them.
ops::Description describe(const Graph& g, const Operator& op) {
  ops::Description d;
  if (const auto describe_op = ops::op_def(op.type).describe) describe_op(g, op, d);
  return d;
}

json tensor_json(const Graph& g, int32_t index) {
  if (index == ir::kNoTensor) return nullptr;
  const Tensor& t = g.tensors[index];
  json j = {{"index", index},
            {"name", t.name},
            {"type", std::string(to_string(t.type))},
            {"shape", t.shape},
            {"bytes", t.num_bytes()},
            {"constant", t.is_constant}};
  if (!t.quantization.empty()) {
    j["scale"] = t.quantization.scale;
    j["zero_point"] = t.quantization.zero_point;
    j["quantized_dimension"] = t.quantization.quantized_dimension;
  }
  const std::vector<int32_t> v = small_int_values(t);
  if (!v.empty()) j["values"] = v;
  return j;
}

std::string json_text(const std::string& path, const Graph& g) {
  json ops = json::array();
  std::map<std::string, int> counts;
  for (size_t i = 0; i < g.operators.size(); ++i) {
    const Operator& op = g.operators[i];
    json in = json::array(), out = json::array();
    for (int32_t t : op.inputs) in.push_back(tensor_json(g, t));
    for (int32_t t : op.outputs) out.push_back(tensor_json(g, t));
    ops.push_back({{"index", i},
                   {"type", std::string(to_string(op.type))},
                   {"inputs", in},
                   {"outputs", out},
                   {"options", describe(g, op).json},
                   {"macs", ops::operator_macs(g, op)},
                   {"constant_bytes", ir::operator_constant_bytes(g, op)}});
    ++counts[std::string(to_string(op.type))];
  }
  json inputs = json::array(), outputs = json::array();
  for (int32_t t : g.inputs) inputs.push_back(tensor_json(g, t));
  for (int32_t t : g.outputs) outputs.push_back(tensor_json(g, t));
  const json doc = {{"model", path},
                    {"tensor_count", g.tensors.size()},
                    {"inputs", inputs},
                    {"outputs", outputs},
                    {"operators", ops},
                    {"operator_counts", counts},
                    {"notes", g.notes},
                    {"macs", ops::total_macs(g)},
                    {"constant_bytes", ir::constant_bytes(g)},
                    {"activation_bytes", ir::activation_bytes(g)}};
  return doc.dump(2) + "\n";
}

void print_text(const std::string& path, const Graph& g) {
  std::printf("model: %s\n", path.c_str());
  std::printf("tensors: %zu  operators: %zu\n", g.tensors.size(), g.operators.size());
  for (int32_t t : g.inputs) std::printf("input   %s\n", tensor_line(g, t).c_str());
  for (int32_t t : g.outputs) std::printf("output  %s\n", tensor_line(g, t).c_str());
  for (const std::string& note : g.notes) std::printf("note    %s\n", note.c_str());
  std::printf("\n");

  // Counts in order of first appearance, which reads better than alphabetical.
  std::vector<std::pair<std::string, int>> counts;
  for (size_t i = 0; i < g.operators.size(); ++i) {
    const Operator& op = g.operators[i];
    const std::string type(to_string(op.type));
    const std::string params = describe(g, op).text;
    if (params.empty()) {
      std::printf("%3zu  %s\n", i, type.c_str());
    } else {
      std::printf("%3zu  %-24s %s\n", i, type.c_str(), params.c_str());
    }
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      std::printf("       in   %s\n", tensor_line(g, op.inputs[k]).c_str());
    }
    for (int32_t t : op.outputs) std::printf("       out  %s\n", tensor_line(g, t).c_str());
    std::printf("       MACs %lld  constant bytes %lld\n",
                static_cast<long long>(ops::operator_macs(g, op)),
                static_cast<long long>(ir::operator_constant_bytes(g, op)));
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& c) { return c.first == type; });
    if (it == counts.end()) {
      counts.emplace_back(type, 1);
    } else {
      ++it->second;
    }
  }

  std::string by_type;
  for (const auto& [type, n] : counts) {
    by_type += (by_type.empty() ? "" : ", ") + type + " " + std::to_string(n);
  }
  std::printf("\ntotals\n");
  std::printf("  operators        %zu (%s)\n", g.operators.size(), by_type.c_str());
  std::printf("  MACs             %lld\n", static_cast<long long>(ops::total_macs(g)));
  std::printf("  constant bytes   %lld\n", static_cast<long long>(ir::constant_bytes(g)));
  std::printf("  activation bytes %lld (every activation tensor, no reuse)\n",
              static_cast<long long>(ir::activation_bytes(g)));
}

// ---- a .mote program ----------------------------------------------------------------------------

std::string program_tensor_line(const schema::ProgramT& p, int32_t index, const std::string& layout) {
  const schema::TensorT& t = *p.tensors.at(static_cast<size_t>(index));
  char head[96];
  std::snprintf(head, sizeof head, "t%-4d %-7s %-16s", index, emit::data_type_name(t.type).c_str(),
                ir::shape_string(t.shape).c_str());
  std::string line = head;
  if (t.scale != 0) line += " scale " + format("%.6g", t.scale) + " zp " + std::to_string(t.zero_point);
  if (t.location == schema::Location::Constant) line += "  const " + std::to_string(t.size) + " B";
  if (!layout.empty()) line += " " + layout;
  if (!t.name.empty()) line += "  \"" + short_name(t.name) + "\"";
  return line;
}

std::string layout_of(const std::vector<std::string>& layouts, size_t i) {
  return i < layouts.size() ? layouts[i] : "";
}

json program_tensor_json(const schema::ProgramT& p, int32_t index, const std::string& layout) {
  const schema::TensorT& t = *p.tensors.at(static_cast<size_t>(index));
  json j = {{"index", index}, {"name", t.name}, {"type", emit::data_type_name(t.type)},
            {"shape", t.shape}, {"bytes", t.size}};
  if (t.scale != 0) {
    j["scale"] = t.scale;
    j["zero_point"] = t.zero_point;
  }
  if (!layout.empty()) j["layout"] = layout;
  return j;
}

json program_json(const std::string& path, const schema::ProgramT& p, size_t bytes) {
  json inputs = json::array(), outputs = json::array(), ops = json::array();
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    inputs.push_back(program_tensor_json(p, p.inputs[i], layout_of(p.input_layouts, i)));
  }
  for (size_t i = 0; i < p.outputs.size(); ++i) {
    outputs.push_back(program_tensor_json(p, p.outputs[i], layout_of(p.output_layouts, i)));
  }
  std::map<std::string, int> counts;
  for (size_t i = 0; i < p.operators.size(); ++i) {
    const schema::OperatorT& op = *p.operators[i];
    const std::string kind(ir::to_string(static_cast<ir::OpType>(op.kind)));
    ops.push_back({{"index", i}, {"kind", kind}, {"inputs", op.inputs}, {"outputs", op.outputs},
                   {"kernel_variant", pipeline::program_kernel_variant(p, op)},
                   {"scratch_bytes", op.scratch ? op.scratch->size() : 0},
                   {"in_place", op.in_place}, {"backward", op.backward}});
    ++counts[kind];
  }
  json doc = {{"program", path},
              {"program_bytes", bytes},
              {"format_version", p.version},
              {"target", {{"cpu", p.target ? p.target->cpu : ""}, {"kernels", emit::target_kernels(p)}}},
              {"arena_bytes", p.arena_size},
              {"arena_alignment", p.arena_alignment},
              {"constant_bytes", p.constants.size()},
              {"constants_crc32", p.constants_crc32.has_value()},
              {"inputs", inputs},
              {"outputs", outputs},
              {"operators", ops},
              {"operator_counts", counts},
              {"stages", p.stages.size()}};
  if (p.plan) {
    doc["plan"] = {{"algorithm", p.plan->algorithm}, {"lower_bound", p.plan->lower_bound},
                   {"optimal", p.plan->optimal}, {"activation_bytes", p.plan->activation_bytes},
                   {"scratch_bytes", p.plan->scratch_bytes}};
  }
  return doc;
}

void print_program(const std::string& path, const schema::ProgramT& p, size_t bytes) {
  std::printf("program: %s (%s bytes, format version %u)\n", path.c_str(),
              planner::grouped(bytes).c_str(), p.version);
  std::printf("target: %s (%s kernels: its scratch sizes and overlaps are planned for them; the "
              "runtime of another kernel build refuses it where they differ)\n",
              p.target ? p.target->cpu.c_str() : "?", emit::target_kernels(p).c_str());
  std::printf("arena: %s bytes (alignment %u)", planner::grouped(p.arena_size).c_str(),
              p.arena_alignment);
  if (p.plan) {
    std::printf(", planned by %s: lower bound %s bytes%s", p.plan->algorithm.c_str(),
                planner::grouped(p.plan->lower_bound).c_str(),
                p.plan->optimal ? ", proven optimal" : "");
  }
  std::printf("\nconstants: %s bytes%s\n", planner::grouped(p.constants.size()).c_str(),
              p.constants_crc32 ? " (CRC-32 checked at load)" : "");
  if (!p.stages.empty()) {
    std::printf("row-streamed stages: %zu\n", p.stages.size());
  }
  std::printf("tensors: %zu  operators: %zu\n", p.tensors.size(), p.operators.size());
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    std::printf("input   %s\n", program_tensor_line(p, p.inputs[i], layout_of(p.input_layouts, i)).c_str());
  }
  for (size_t i = 0; i < p.outputs.size(); ++i) {
    std::printf("output  %s\n",
                program_tensor_line(p, p.outputs[i], layout_of(p.output_layouts, i)).c_str());
  }
  std::printf("\n");
  std::vector<std::pair<std::string, int>> counts;
  std::map<std::string, int> variants;
  for (size_t i = 0; i < p.operators.size(); ++i) {
    const schema::OperatorT& op = *p.operators[i];
    const std::string kind(ir::to_string(static_cast<ir::OpType>(op.kind)));
    const std::string variant = pipeline::program_kernel_variant(p, op);
    ++variants[variant];
    std::string extra = "  " + variant + " kernel";
    if (op.scratch && op.scratch->size() > 0) {
      extra += "  scratch " + planner::grouped(op.scratch->size()) + " B";
    }
    if (op.backward) extra += "  backward";
    std::printf("%3zu  %s%s\n", i, kind.c_str(), extra.c_str());
    for (int32_t t : op.inputs) {
      if (t >= 0) std::printf("       in   %s\n", program_tensor_line(p, t, "").c_str());
    }
    for (int32_t t : op.outputs) std::printf("       out  %s\n", program_tensor_line(p, t, "").c_str());
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == kind; });
    if (it == counts.end()) {
      counts.emplace_back(kind, 1);
    } else {
      ++it->second;
    }
  }
  std::string by_kind;
  for (const auto& [kind, n] : counts) by_kind += (by_kind.empty() ? "" : ", ") + kind + " " + std::to_string(n);
  std::printf("\ntotals\n  operators        %zu (%s)\n", p.operators.size(), by_kind.c_str());
  std::string by_variant;
  for (const auto& [variant, n] : variants) {
    by_variant += (by_variant.empty() ? "" : ", ") + variant + " " + std::to_string(n);
  }
  std::printf("  kernels          %s\n", by_variant.c_str());
}

// A .mote program as it is: what it was compiled for and what it holds.
void inspect_program(const InspectOptions& options) {
  const emit::ProgramFile file = emit::read_program_file(options.model);
  if (options.json_path.empty()) {
    print_program(options.model, *file.program, file.bytes.size());
    emit::flush_stdout();
    return;
  }
  emit::OutputFiles files;
  files.add(options.json_path,
            program_json(options.model, *file.program, file.bytes.size()).dump(2) + "\n");
  files.commit();
}

// A refused operator's name and reason, from the problem's "operator 3 (TANH): <reason>": the
// name there says more than the type (a custom operator's code, "CUSTOM 'SignalWindow'").
std::pair<std::string, std::string> name_and_reason(const tflite::OperatorVerdict& op) {
  const std::string prefix = "operator " + std::to_string(op.index) + " (";
  const size_t end = op.problem.find("): ");
  if (op.problem.rfind(prefix, 0) != 0 || end == std::string::npos) return {op.type, op.problem};
  return {op.problem.substr(prefix.size(), end - prefix.size()), op.problem.substr(end + 3)};
}

std::string check_json(const std::string& path, const tflite::SupportReport& report) {
  json ops = json::array();
  for (const tflite::OperatorVerdict& op : report.operators) {
    json j = {{"index", op.index}, {"type", op.type}, {"compiles", op.problem.empty()}};
    if (!op.problem.empty()) j["problem"] = op.problem;
    ops.push_back(j);
  }
  const json doc = {{"model", path},
                    {"compiles", report.compiles()},
                    {"operators", ops},
                    {"problems", report.model},
                    {"notes", report.notes}};
  return doc.dump(2) + "\n";
}

void print_check(const std::string& path, const tflite::SupportReport& report) {
  std::printf("model: %s\n", path.c_str());
  for (const std::string& note : report.notes) std::printf("note    %s\n", note.c_str());
  size_t refused = 0;
  for (const tflite::OperatorVerdict& op : report.operators) {
    if (op.problem.empty()) {
      std::printf("%3u  %-28s ok\n", op.index, op.type.c_str());
    } else {
      ++refused;
      const auto [name, why] = name_and_reason(op);
      std::printf("%3u  %-28s cannot compile: %s\n", op.index, name.c_str(), why.c_str());
    }
  }
  for (const std::string& problem : report.model) std::printf("model  %s\n", problem.c_str());
  if (report.compiles()) {
    std::printf("verdict: all %zu operators compile\n", report.operators.size());
  } else {
    std::printf("verdict: %zu of %zu operators cannot compile%s; mote compile refuses this model\n",
                refused, report.operators.size(),
                report.model.empty() ? "" : ", and the model has problems of its own");
  }
}

// An ONNX node as the --check line names it: type, name, domain and opset.
std::string node_label(const onnx::NodeVerdict& n) {
  std::string label = n.type;
  if (!n.name.empty()) {
    label += " '" + n.name + "'";
  } else if (!n.output.empty()) {
    label += " -> '" + n.output + "'";
  }
  return label + " (" + n.domain + ", opset " + std::to_string(n.opset) + ")";
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The same shape as the .tflite JSON, an ONNX node per entry of "operators".
std::string check_json(const std::string& path, const onnx::CheckReport& report) {
  json nodes = json::array();
  for (const onnx::NodeVerdict& n : report.nodes) {
    json j = {{"index", n.index},   {"type", n.type},     {"name", n.name},
              {"output", n.output}, {"domain", n.domain}, {"opset", n.opset},
              {"compiles", n.problem.empty()}, {"becomes", n.becomes}};
    if (!n.problem.empty()) j["problem"] = n.problem;
    if (n.blocked_by >= 0) j["blocked_by"] = n.blocked_by;
    if (n.folded_into >= 0) j["folded_into"] = n.folded_into;
    nodes.push_back(j);
  }
  const json doc = {{"model", path},
                    {"compiles", report.compiles()},
                    {"operators", nodes},
                    {"problems", report.model},
                    {"notes", report.notes}};
  return doc.dump(2) + "\n";
}

void print_check(const std::string& path, const onnx::CheckReport& report) {
  std::printf("model: %s\n", path.c_str());
  for (const std::string& note : report.notes) std::printf("note    %s\n", note.c_str());
  size_t refused = 0, blocked = 0;
  for (const onnx::NodeVerdict& n : report.nodes) {
    std::string verdict;
    if (n.blocked_by >= 0) {
      ++blocked;
      verdict = n.reason;
    } else if (!n.problem.empty()) {
      ++refused;
      verdict = "cannot compile: " + n.reason;
    } else if (n.folded_into >= 0) {
      verdict = "ok: read with node " + std::to_string(n.folded_into) + " (" +
                report.nodes[static_cast<size_t>(n.folded_into)].type + ")";
    } else {
      verdict = n.becomes.empty() ? "ok: folded" : "ok: " + joined(n.becomes);
    }
    std::printf("%3d  %-44s %s\n", n.index, node_label(n).c_str(), verdict.c_str());
  }
  for (const std::string& problem : report.model) std::printf("model  %s\n", problem.c_str());
  if (report.compiles()) {
    std::printf("verdict: all %zu nodes compile\n", report.nodes.size());
  } else if (report.nodes.empty()) {
    std::printf("verdict: mote compile refuses this model\n");
  } else {
    std::printf("verdict: %zu of %zu nodes cannot compile%s%s; mote compile refuses this model\n",
                refused, report.nodes.size(),
                blocked == 0 ? "" : (", " + std::to_string(blocked) + " more not checked (their "
                                     "inputs depend on those)").c_str(),
                report.model.empty() ? "" : ", and the model has problems of its own");
  }
}

// --check: the model's verdict. Exit status 2 when Mote cannot compile it (its reasons printed).
void run_check(const InspectOptions& options) {
  import::ModelCheck check;
  try {
    check = import::check_model_file(options.model, options.import);
  } catch (const InputError& e) {
    throw InputError(options.model + ": " + e.what());
  }
  const bool compiles = std::visit([](const auto& report) { return report.compiles(); }, check);
  if (options.json_path.empty()) {
    std::visit([&](const auto& report) { print_check(options.model, report); }, check);
    emit::flush_stdout();
  } else {
    emit::OutputFiles files;
    files.add(options.json_path,
              std::visit([&](const auto& report) { return check_json(options.model, report); }, check));
    files.commit();
  }
  if (!compiles) throw CommandExit{kExitBadInput};
}

void run_inspect(const InspectOptions& options) {
  if (emit::is_program_file(options.model)) {
    if (options.check) {
      throw InputError(options.model + ": a .mote program, already compiled; --check takes the "
                       "model (.tflite, .onnx)");
    }
    return inspect_program(options);
  }
  if (options.check) return run_check(options);
  Graph g;
  try {
    g = read_model_for_command(options.model, options.import);
  } catch (const InputError& e) {
    // A float model is refused for one reason; its structure still helps (which operators it
    // has, to quantize): the per-operator table, then the error.
    if (options.json_path.empty()) {
      try {
        const tflite::SupportReport report = tflite::check_model_file(options.model);
        if (report.float_model) {
          print_check(options.model, report);
          emit::flush_stdout();
        }
      } catch (const InputError&) {
      }
    }
    throw InputError(options.model + ": " + e.what());
  }
  if (options.json_path.empty()) {
    print_text(options.model, g);
    emit::flush_stdout();
    return;
  }
  emit::OutputFiles files;
  files.add(options.json_path, json_text(options.model, g));
  files.commit();
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto options = std::make_shared<InspectOptions>();
  auto* cmd = app.add_subcommand(
      "inspect",
      "Print a .tflite or .onnx model's operators, shapes, quantization, MACs and sizes, or what\n"
      "a .mote program holds: the CPU and kernels it was compiled for, arena, operators, inputs\n"
      "and outputs");
  // Not required here: the old switch spelling `--json MODEL` hands the model to --json.
  cmd->add_option("model", options->model,
                  "the model: .tflite, or quantized .onnx; or a .mote program");
  add_import_options(cmd, options->import);
  add_json_option(cmd, options->json_path, "write the same as JSON");
  cmd->add_flag("--check", options->check,
                "list every operator (.tflite) or node (.onnx) with whether Mote can compile it "
                "and why not, without planning; exit status 2 when any cannot");
  cmd->footer(
      "Examples:\n"
      "  mote inspect model.tflite\n"
      "  mote inspect model.tflite --json model.json   # {\"operators\": [{\"index\": 0, "
      "\"type\": \"CONV_2D\", ...}], \"macs\": N, \"constant_bytes\": N, ...}\n"
      "  mote inspect model.tflite --json -            # the same on stdout\n"
      "  mote inspect --check model.tflite             # each operator: ok, or why Mote cannot "
      "compile it\n"
      "  mote inspect --check model.onnx               # each ONNX node: ok (the operators it "
      "becomes), why not, or blocked by which node\n"
      "  mote inspect model.mote                       # the program: its target CPU, arena, "
      "operators\n"
      "The old switch `mote inspect --json model.tflite` (JSON on stdout) still works for one "
      "release.\n"
      "Exit status: 0 success, 2 bad input (unreadable, invalid or unsupported model; with "
      "--check, a model that Mote cannot compile) or an output that cannot be written, 1 internal "
      "error.");
  cmd->callback([options] {
    InspectOptions o = *options;
    if (o.model.empty() && !o.json_path.empty() && o.json_path != "-") {
      o.model = o.json_path;  // the old switch: `inspect --json MODEL`
      o.json_path = "-";
    }
    if (o.model.empty()) {
      throw CLI::RequiredError("model");
    }
    run_inspect(o);
  });
}

}  // namespace mote::tools
