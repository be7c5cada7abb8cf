#include "compiler/pipeline/analyze.h"

#include <algorithm>
#include <cstdio>

#include "compiler/ir/error.h"
#include "compiler/ir/stats.h"
#include "compiler/ops/op_def.h"
#include "compiler/planner/report.h"
#include "compiler/target/target.h"
#include "mote/kernels/add.h"
#include "mote/kernels/mul.h"
#include "mote/kernels/pooling.h"

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


// --- a program's own rows -------------------------------------------------------------------

const std::vector<int32_t>& shape_of(const schema::ProgramT& p, int32_t tensor) {
  return p.tensors[static_cast<size_t>(tensor)]->shape;
}

// The window dimensions of CONV_2D and DEPTHWISE_CONV_2D from their tensors and options, as the
// runtime builds the kernel's shape at load.
template <typename Shape, typename Options>
Shape window_shape(const schema::ProgramT& p, const schema::OperatorT& op, const Options& o) {
  const std::vector<int32_t>&x = shape_of(p, op.inputs[0]), &w = shape_of(p, op.inputs[1]),
                          &y = shape_of(p, op.outputs[0]);
  Shape s{};
  s.batches = x[0];
  s.input_h = x[1];
  s.input_w = x[2];
  s.input_c = x[3];
  s.filter_h = w[1];
  s.filter_w = w[2];
  s.output_h = y[1];
  s.output_w = y[2];
  s.output_c = y[3];
  s.stride_h = o.stride_h;
  s.stride_w = o.stride_w;
  s.pad_h = o.pad_h;
  s.pad_w = o.pad_w;
  s.dilation_h = o.dilation_h;
  s.dilation_w = o.dilation_w;
  return s;
}

// The program's tensors as an IR graph of shapes alone, for the operators' own MAC counts
// (ops::operator_macs), which read shapes; BATCH_MATMUL's also its adjoints. The inputs a program
// folded into options (OpDef::program_inputs leaves them out) are an empty tensor here.
struct ShapeGraph {
  ir::Graph graph;
  int32_t empty = 0;

  explicit ShapeGraph(const schema::ProgramT& p) {
    graph.tensors.resize(p.tensors.size() + 1);
    for (size_t t = 0; t < p.tensors.size(); ++t) graph.tensors[t].shape = p.tensors[t]->shape;
    empty = static_cast<int32_t>(p.tensors.size());
    graph.tensors.back().shape = {0};
  }

  int64_t macs(const schema::OperatorT& op) {
    ir::Operator o;
    o.type = static_cast<ir::OpType>(op.kind);
    o.outputs = op.outputs;
    const std::span<const int8_t> order = ops::op_def(o.type).program_inputs;
    if (order.empty()) {
      o.inputs = op.inputs;
    } else {
      o.inputs.assign(static_cast<size_t>(*std::max_element(order.begin(), order.end())) + 1,
                      empty);
      for (size_t j = 0; j < order.size() && j < op.inputs.size(); ++j) {
        o.inputs[static_cast<size_t>(order[j])] = op.inputs[j];
      }
    }
    for (int32_t& t : o.inputs) t = t < 0 ? empty : t;
    if (const schema::BatchMatMulOptionsT* b = op.options.AsBatchMatMulOptions()) {
      o.options = ir::BatchMatMulOptions{.adj_x = b->adj_x, .adj_y = b->adj_y};
    }
    return ops::operator_macs(graph, o);
  }
};

}  // namespace

// The kernel variant that runs an operator of the program on its target's extension: the
// kernels' own tables (the ones the compiler chose with), keyed by what the program holds.
std::string program_kernel_variant(const schema::ProgramT& p, const schema::OperatorT& op) {
  const auto e = p.target ? static_cast<kernels::Extension>(p.target->extension)
                          : kernels::Extension::kScalar;
  using schema::OpKind;
  const std::string portable = kernels::to_string(kernels::Variant::kPortable);
  if (op.in_place) return "in-place";
  // The variant tables are int8's; other activations run the portable kernels.
  if (op.inputs.empty() || op.inputs[0] < 0 ||
      p.tensors[static_cast<size_t>(op.inputs[0])]->type != schema::DataType::Int8) {
    return portable;
  }
  switch (op.kind) {
    case OpKind::Conv2D: {
      auto s = window_shape<kernels::ConvShape>(p, op, *op.options.AsConvOptions());
      s.filter_c = shape_of(p, op.inputs[1])[3];
      return kernels::conv_kernel_variant(s, e);
    }
    case OpKind::DepthwiseConv2D:
      return kernels::depthwise_conv_kernel_variant(
          window_shape<kernels::DepthwiseShape>(p, op, *op.options.AsDepthwiseConvOptions()), e);
    case OpKind::FullyConnected:
      return kernels::fully_connected_kernel_variant(shape_of(p, op.inputs[1])[0], e);
    case OpKind::AveragePool2D:
    case OpKind::MaxPool2D: {
      const schema::PoolOptionsT& o = *op.options.AsPoolOptions();
      const std::vector<int32_t>&x = shape_of(p, op.inputs[0]), &y = shape_of(p, op.outputs[0]);
      const kernels::PoolParams params{x[0],       x[1],       x[2],       x[3],
                                       y[1],       y[2],       o.filter_h, o.filter_w,
                                       o.stride_h, o.stride_w, o.pad_h,    o.pad_w,
                                       o.activation_min,       o.activation_max};
      return op.kind == OpKind::MaxPool2D ? kernels::max_pool_kernel_variant(params, e)
                                            : kernels::average_pool_kernel_variant(params, e);
    }
    case OpKind::Add:
    case OpKind::Mul: {
      const std::vector<int32_t>&a = shape_of(p, op.inputs[0]), &b = shape_of(p, op.inputs[1]);
      kernels::BroadcastShape shape{};
      if (!kernels::prepare_broadcast_shape(a.data(), static_cast<int32_t>(a.size()), b.data(),
                                            static_cast<int32_t>(b.size()), &shape)) {
        return portable;
      }
      return op.kind == OpKind::Add ? kernels::add_kernel_variant(shape, e)
                                    : kernels::mul_kernel_variant(shape, e);
    }
    default:
      return portable;
  }
}

Analysis analyze_program(const std::string& source, const schema::ProgramT& p,
                         size_t program_bytes) {
  Analysis a;
  a.source = source;
  a.from_program = true;
  const auto extension = p.target ? static_cast<kernels::Extension>(p.target->extension)
                                  : kernels::Extension::kScalar;
  a.cpu = p.target ? p.target->cpu : "";
  a.extension = std::string(target::extension_name(extension));
  a.arena_bytes = p.arena_size;
  a.lower_bound = p.plan ? p.plan->lower_bound : 0;
  a.program_bytes = program_bytes;
  ShapeGraph shapes(p);
  std::vector<bool> counted(p.tensors.size(), false);
  // The arena in use at a step before the rounding up (the plan report's peak is the first step
  // whose buffers end highest).
  uint64_t highest = 0;
  for (size_t i = 0; i < p.operators.size(); ++i) {
    const schema::OperatorT& op = *p.operators[i];
    const auto step = static_cast<uint32_t>(i);
    OperatorRow row;
    row.step = static_cast<int32_t>(i);
    row.model_index = row.step;
    row.type = std::string(ir::to_string(static_cast<ir::OpType>(op.kind)));
    if (!op.outputs.empty() && op.outputs[0] >= 0) row.output_shape = shape_of(p, op.outputs[0]);
    row.macs = shapes.macs(op);
    for (const int32_t t : op.inputs) {
      if (t < 0 || p.tensors[static_cast<size_t>(t)]->location != schema::Location::Constant) {
        continue;
      }
      const uint64_t size = p.tensors[static_cast<size_t>(t)]->size;
      row.constant_bytes += static_cast<int64_t>(size);
      if (!counted[static_cast<size_t>(t)]) a.constant_bytes += static_cast<int64_t>(size);
      counted[static_cast<size_t>(t)] = true;
    }
    uint64_t end = 0;
    const auto live = [&](const schema::TensorT& t) {
      return t.location == schema::Location::Arena && t.size > 0 && t.first_step <= step &&
             step <= t.last_step;
    };
    for (const auto& t : p.tensors) {
      // An alias shares its target's bytes: counted once while both live.
      if (!live(*t) || (t->alias >= 0 && live(*p.tensors[static_cast<size_t>(t->alias)]))) {
        continue;
      }
      row.live_bytes += t->size;
      end = std::max<uint64_t>(end, uint64_t{t->offset} + t->size);
    }
    if (op.scratch && op.scratch->size() > 0) {
      row.scratch_bytes = op.scratch->size();
      row.live_bytes += row.scratch_bytes;
      end = std::max<uint64_t>(end, uint64_t{op.scratch->offset()} + op.scratch->size());
    }
    if (i == 0 || end > highest) {
      highest = end;
      a.peak_step = row.step;
    }
    const uint64_t align = std::max<uint32_t>(p.arena_alignment, 1);
    row.arena_bytes = (end + align - 1) / align * align;
    row.kernel_variant = program_kernel_variant(p, op);
    a.macs += row.macs;
    a.scratch_bytes = std::max(a.scratch_bytes, row.scratch_bytes);
    a.rows.push_back(std::move(row));
  }
  return a;
}

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
  a.quantized_inputs = planned.quantized_inputs;
  a.quantized_inputs_sentence = quantized_inputs_sentence(planned);
  a.estimated_instructions = planned.estimated_instructions;
  a.extra_instructions = planned.extra_instructions;
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
  if (a.from_program) {
    out += "program: the rows as compiled (no model operator indices, and shape operands are in the "
           "operators' options, not in flash)\n";
  }
  if (a.folded_pads > 0) {
    out += "folded: " + std::to_string(a.folded_pads) +
           (a.folded_pads == 1 ? " PAD runs as its reader's padding"
                               : " PADs run as their readers' padding") +
           " (no step, no padded copy; JSON model_index skips them)\n";
  }
  if (a.quantized_inputs > 0) out += a.quantized_inputs_sentence + " (no step)\n";
  if (!std::is_sorted(a.rows.begin(), a.rows.end(), [](const OperatorRow& x, const OperatorRow& y) {
        return x.model_index < y.model_index;
      })) {
    out += "steps: the operators in the order that needs the smallest arena, not the model's (JSON "
           "model_index: each one's index in the model; --order=model keeps the model's order)\n";
  }
  if (!a.optimize.empty()) out += "optimize: " + a.optimize + "\n";
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
            {"quantized_inputs", a.quantized_inputs},
            {"optimize", a.optimize},
            {"peak_step", a.peak_step}}}};
  if (a.estimated_instructions) {
    j["totals"]["estimated_instructions"] = *a.estimated_instructions;
    j["totals"]["estimated_extra_instructions"] = a.extra_instructions.value_or(0.0);
  }
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
