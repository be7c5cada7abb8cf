// `mote inspect MODEL.tflite [--json FILE]`: what a model holds, operator by operator.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/stats.h"
#include "compiler/ops/op_def.h"
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

// --check: the model's verdict. Exit status 2 when Mote cannot compile it (its reasons printed).
void run_check(const InspectOptions& options) {
  tflite::SupportReport report;
  try {
    report = import::check_model_file(options.model, options.import);
  } catch (const InputError& e) {
    throw InputError(options.model + ": " + e.what());
  }
  if (options.json_path.empty()) {
    print_check(options.model, report);
    emit::flush_stdout();
  } else {
    emit::OutputFiles files;
    files.add(options.json_path, check_json(options.model, report));
    files.commit();
  }
  if (!report.compiles()) throw CommandExit{kExitBadInput};
}

void run_inspect(const InspectOptions& options) {
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
      "inspect", "Print a .tflite or .onnx model's operators, shapes, quantization, MACs and sizes");
  // Not required here: the old switch spelling `--json MODEL` hands the model to --json.
  cmd->add_option("model", options->model, "the model: .tflite, or quantized .onnx");
  add_import_options(cmd, options->import);
  add_json_option(cmd, options->json_path, "write the same as JSON");
  cmd->add_flag("--check", options->check,
                "list every operator with whether Mote can compile it and why not, without "
                "planning; exit status 2 when any cannot");
  cmd->footer(
      "Examples:\n"
      "  mote inspect model.tflite\n"
      "  mote inspect model.tflite --json model.json   # {\"operators\": [{\"index\": 0, "
      "\"type\": \"CONV_2D\", ...}], \"macs\": N, \"constant_bytes\": N, ...}\n"
      "  mote inspect model.tflite --json -            # the same on stdout\n"
      "  mote inspect --check model.tflite             # each operator: ok, or why Mote cannot "
      "compile it\n"
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
