#include "compiler/pipeline/analyze.h"

#include <algorithm>
#include <cstdio>

#include "compiler/ir/error.h"
#include "compiler/ir/stats.h"
#include "compiler/ops/op_def.h"
#include "compiler/planner/report.h"
#include "compiler/target/target.h"

namespace mote::pipeline {
namespace {

using planner::grouped;

std::string shape_text(const std::vector<int32_t>& shape, const char* separator) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? separator : "") + std::to_string(shape[i]);
  return out;
}

std::string bracketed(const std::vector<int32_t>& shape) {
  std::string out(1, '[');
  out += shape_text(shape, ",");
  out += ']';
  return out;
}


}  // namespace

Analysis analyze(const std::string& source, const Compiled& compiled) {
  const PlannedGraph& planned = compiled.planned;
  const ir::Graph& graph = planned.graph;
  const planner::Plan& plan = planned.plan();
  const planner::Problem& problem = planned.memory.problem;
  Analysis a;
  a.source = source;
  a.cpu = planned.cpu.name;
  a.extension = std::string(target::extension_name(planned.cpu.extension));
  a.macs = ops::total_macs(graph);
  a.constant_bytes = ir::constant_bytes(graph);
  a.arena_bytes = plan.arena_bytes;
  a.lower_bound = planned.bound.bytes;
  a.program_bytes = compiled.program.size();
  a.folded_pads = planned.folded_pads;
  a.peak_step = -1;
  for (size_t i = 0; i < graph.operators.size(); ++i) {
    const ir::Operator& op = graph.operators[i];
    OperatorRow row;
    row.step = static_cast<int32_t>(i);
    row.model_index = i < planned.order.order.size() ? planned.order.order[i] : row.step;
    row.type = std::string(ir::to_string(op.type));
    if (!op.outputs.empty() && op.outputs[0] != ir::kNoTensor) {
      row.output_shape = graph.tensors[static_cast<size_t>(op.outputs[0])].shape;
    }
    row.macs = ops::operator_macs(graph, op);
    row.constant_bytes = ir::operator_constant_bytes(graph, op);
    for (size_t b = 0; b < problem.buffers.size(); ++b) {
      const planner::Buffer& buffer = problem.buffers[b];
      if (buffer.first_step > row.step || buffer.last_step < row.step || buffer.size == 0) continue;
      row.live_bytes += buffer.size;
      row.arena_bytes = std::max(row.arena_bytes, plan.offsets[b] + buffer.size);
    }
    // The arena is a multiple of its alignment; so is the part of it in use.
    const uint64_t align = planner::arena_alignment(problem);
    row.arena_bytes = (row.arena_bytes + align - 1) / align * align;
    if (i < planned.memory.kernels.size()) {
      row.kernel_variant = planned.memory.kernels[i].variant;
      row.scratch_bytes = planned.memory.kernels[i].scratch_bytes;
    }
    a.scratch_bytes = std::max(a.scratch_bytes, row.scratch_bytes);
    a.rows.push_back(std::move(row));
  }
  // The peak is the plan report's (the step whose buffers end highest, before the rounding up
  // to the alignment, which can tie an earlier step with it).
  a.peak_step = planner::plan_figures(problem, planned.bound, plan).peak_step;
  return a;
}

void add_instructions(Analysis& a, const std::vector<uint64_t>& per_operator,
                      const std::string& board) {
  if (per_operator.size() != a.rows.size()) {
    throw InputError("the runner reported instructions for " + std::to_string(per_operator.size()) +
                     " operators, the program has " + std::to_string(a.rows.size()));
  }
  a.measured = true;
  a.measured_on = board;
  a.instructions = 0;
  for (size_t i = 0; i < per_operator.size(); ++i) {
    a.rows[i].instructions = per_operator[i];
    a.instructions += per_operator[i];
  }
}

std::string analysis_text(const Analysis& a) {
  std::string out =
      "mote analyze: " + a.source + " for " + a.cpu + " (" + a.extension + ")" + a.target_note + "\n";
  char line[256];
  const auto measured = [&](uint64_t n) {
    char cell[24];
    std::snprintf(cell, sizeof(cell), " %14s", grouped(n).c_str());
    return a.measured ? std::string(cell) : std::string();
  };
  std::snprintf(line, sizeof(line), "%5s  %-24s %-16s %12s %10s %10s %10s %8s%s  %s\n", "step",
                "operator", "output", "MACs", "flash", "live", "arena", "scratch",
                a.measured ? "   instructions" : "", "kernel");
  out += line;
  for (const OperatorRow& r : a.rows) {
    std::snprintf(line, sizeof(line), "%5d  %-24s %-16s %12s %10s %10s %10s %8s%s  %s%s\n", r.step,
                  r.type.c_str(), bracketed(r.output_shape).c_str(),
                  grouped(static_cast<uint64_t>(r.macs)).c_str(),
                  grouped(static_cast<uint64_t>(r.constant_bytes)).c_str(),
                  grouped(r.live_bytes).c_str(), grouped(r.arena_bytes).c_str(),
                  grouped(r.scratch_bytes).c_str(), measured(r.instructions).c_str(),
                  r.kernel_variant.c_str(),
                  r.step == a.peak_step ? "  <- peak" : "");
    out += line;
  }
  std::snprintf(line, sizeof(line), "%5s  %-24s %-16s %12s %10s %10s %10s %8s%s\n", "total",
                planner::counted(a.rows.size(), "operator").c_str(), "",
                grouped(static_cast<uint64_t>(a.macs)).c_str(),
                grouped(static_cast<uint64_t>(a.constant_bytes)).c_str(),
                grouped(a.lower_bound).c_str(), grouped(a.arena_bytes).c_str(),
                grouped(a.scratch_bytes).c_str(), measured(a.instructions).c_str());
  out += line;
  out += "flash: the constants each operator reads (total: every constant once, as mote inspect "
         "counts); program " + grouped(a.program_bytes) + " bytes\n";
  out += "live: bytes of the buffers live at the step (total: the lower bound); arena: the arena "
         "in use then (total: the plan's arena)\n";
  if (a.folded_pads > 0) {
    out += "folded: " + std::to_string(a.folded_pads) +
           (a.folded_pads == 1 ? " PAD runs as its reader's padding"
                               : " PADs run as their readers' padding") +
           " (no step, no padded copy; JSON model_index skips them)\n";
  }
  if (!std::is_sorted(a.rows.begin(), a.rows.end(), [](const OperatorRow& x, const OperatorRow& y) {
        return x.model_index < y.model_index;
      })) {
    out += "steps: the operators in the order that needs the smallest arena, not the model's (JSON "
           "model_index: each one's index in the model; --order=model keeps the model's order)\n";
  }
  if (a.measured) {
    out += "instructions: each operator's, measured under QEMU " + a.measured_on +
           " with -icount (one inference, " + a.cpu + "'s kernels)\n";
  }
  return out;
}

nlohmann::json analysis_json(const Analysis& a) {
  nlohmann::json rows = nlohmann::json::array();
  for (const OperatorRow& r : a.rows) {
    rows.push_back({{"step", r.step},
                    {"model_index", r.model_index},
                    {"type", r.type},
                    {"output_shape", r.output_shape},
                    {"macs", r.macs},
                    {"constant_bytes", r.constant_bytes},
                    {"live_bytes", r.live_bytes},
                    {"arena_bytes", r.arena_bytes},
                    {"scratch_bytes", r.scratch_bytes},
                    {"kernel_variant", r.kernel_variant}});
    if (a.measured) rows.back()["instructions"] = r.instructions;
  }
  nlohmann::json j = {{"source", a.source},
          {"target", a.cpu},
          {"extension", a.extension},
          {"operators", std::move(rows)},
          {"totals",
           {{"operators", a.rows.size()},
            {"macs", a.macs},
            {"constant_bytes", a.constant_bytes},
            {"arena_bytes", a.arena_bytes},
            {"lower_bound_bytes", a.lower_bound},
            {"max_scratch_bytes", a.scratch_bytes},
            {"program_bytes", a.program_bytes},
            {"folded_pads", a.folded_pads},
            {"peak_step", a.peak_step}}}};
  if (a.measured) {
    j["totals"]["instructions"] = a.instructions;
    j["measured_on"] = a.measured_on;
  }
  return j;
}

std::string analysis_csv(const Analysis& a) {
  std::string out =
      "step,type,output_shape,macs,constant_bytes,live_bytes,arena_bytes,scratch_bytes,kernel_variant";
  out += a.measured ? ",instructions\n" : "\n";
  // Cells appended one by one: gcc 12 warns falsely (-Wrestrict) on long "," + ... chains.
  const auto cell = [&out](const std::string& text) {
    out += ',';
    out += text;
  };
  for (const OperatorRow& r : a.rows) {
    out += std::to_string(r.step);
    for (const std::string& text :
         {r.type, shape_text(r.output_shape, "x"), std::to_string(r.macs),
          std::to_string(r.constant_bytes), std::to_string(r.live_bytes),
          std::to_string(r.arena_bytes), std::to_string(r.scratch_bytes), r.kernel_variant}) {
      cell(text);
    }
    if (a.measured) cell(std::to_string(r.instructions));
    out += '\n';
  }
  out += "total,,";
  for (const std::string& text :
       {std::to_string(a.macs), std::to_string(a.constant_bytes), std::to_string(a.lower_bound),
        std::to_string(a.arena_bytes), std::to_string(a.scratch_bytes), std::string()}) {
    cell(text);
  }
  if (a.measured) cell(std::to_string(a.instructions));
  out += '\n';
  return out;
}

}  // namespace mote::pipeline
