#include "compiler/passes/lower.h"

#include <stdexcept>

#include "compiler/emit/emit.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/planner/report.h"

namespace mote::passes {
namespace {

class Lowering {
 public:
  Lowering(const ir::Graph& graph, const MemoryProblem& memory, const planner::Plan& plan,
           const LowerOptions& options)
      : graph_(graph), memory_(memory), plan_(plan), options_(options),
        remap_(graph.tensors.size(), ir::kNoTensor) {}

  LoweredProgram run(const planner::LowerBound& bound) {
    for (size_t step = 0; step < graph_.operators.size(); ++step) {
      step_ = step;
      program_.operators.push_back(lower_op(graph_.operators[step]));
    }
    for (int32_t t : graph_.inputs) program_.inputs.push_back(use(t));
    for (int32_t t : graph_.outputs) program_.outputs.push_back(use(t));

    program_.target = std::make_unique<schema::TargetT>();
    program_.target->cpu = options_.cpu;
    program_.target->extension = static_cast<schema::Extension>(options_.extension);
    program_.arena_size = static_cast<uint32_t>(plan_.arena_bytes);
    program_.arena_alignment = planner::arena_alignment(memory_.problem);

    const planner::PlanFigures split = planner::plan_figures(memory_.problem, bound, plan_);
    program_.plan = std::make_unique<schema::PlanStatsT>();
    program_.plan->algorithm =
        plan_.chosen.empty() || plan_.chosen == plan_.algorithm
            ? plan_.algorithm
            : plan_.algorithm + " (" + plan_.chosen + ")";
    program_.plan->lower_bound = static_cast<uint32_t>(bound.bytes);
    program_.plan->activation_bytes = static_cast<uint32_t>(split.activation_bytes);
    program_.plan->scratch_bytes = static_cast<uint32_t>(split.scratch_bytes);
    program_.plan->optimal = plan_.optimal;
    program_.constants = constants_.take();
    return {std::move(program_), std::move(remap_)};
  }

 private:
  // The program's index of IR tensor `index`, emitting the tensor on first use.
  int32_t use(int32_t index) {
    if (index == ir::kNoTensor) return -1;
    const size_t t = static_cast<size_t>(index);
    if (remap_[t] != ir::kNoTensor) return remap_[t];
    const ir::Tensor& source = graph_.tensors[t];
    auto out = std::make_unique<schema::TensorT>();
    if (options_.keep_names) out->name = source.name;
    out->type = static_cast<schema::DataType>(source.type);
    out->shape = source.shape;
    if (source.quantization.scale.size() == 1) {
      out->scale = source.quantization.scale[0];
      out->zero_point = static_cast<int32_t>(source.quantization.zero_point[0]);
    }
    out->size = static_cast<uint32_t>(source.num_bytes());
    out->alias = -1;
    if (source.is_constant) {
      out->location = schema::Location::Constant;
      out->offset = constants_.add(source.data);
    } else {
      const int32_t buffer = memory_.tensor_buffer[t];
      if (buffer == kNoBuffer) {
        throw std::logic_error("tensor " + std::to_string(t) + " has no arena buffer");
      }
      const int32_t owner = memory_.buffer_owner[t];
      if (owner != index) out->alias = use(owner);
      const planner::Buffer& b = memory_.problem.buffers[static_cast<size_t>(buffer)];
      out->location = schema::Location::Arena;
      out->offset = static_cast<uint32_t>(plan_.offsets[static_cast<size_t>(buffer)]);
      out->first_step = static_cast<uint32_t>(b.first_step);
      out->last_step = static_cast<uint32_t>(b.last_step);
    }
    remap_[t] = static_cast<int32_t>(program_.tensors.size());
    program_.tensors.push_back(std::move(out));
    return remap_[t];
  }

  std::unique_ptr<schema::OperatorT> lower_op(const ir::Operator& op) {
    auto out = std::make_unique<schema::OperatorT>();
    out->kind = ops::op_kind(op.type);
    const ops::OpDef& def = ops::op_def(op.type);
    if (def.lower != nullptr) {
      ops::LowerContext context(graph_, step_, constants_);
      def.lower(context, *out);
    }
    // The inputs the runtime reads; parameter inputs were folded into the options.
    if (def.program_inputs.empty()) {
      for (int32_t t : op.inputs) out->inputs.push_back(use(t));
    } else {
      for (int8_t k : def.program_inputs) {
        const size_t position = static_cast<size_t>(k);
        out->inputs.push_back(position < op.inputs.size() ? use(op.inputs[position]) : -1);
      }
    }
    for (int32_t t : op.outputs) out->outputs.push_back(use(t));
    const int32_t scratch = memory_.op_scratch_buffer[step_];
    if (scratch != kNoBuffer) {
      const auto b = static_cast<size_t>(scratch);
      out->scratch = std::make_unique<schema::Region>(
          static_cast<uint32_t>(plan_.offsets[b]),
          static_cast<uint32_t>(memory_.problem.buffers[b].size));
    }
    return out;
  }

  const ir::Graph& graph_;
  const MemoryProblem& memory_;
  const planner::Plan& plan_;
  const LowerOptions& options_;
  std::vector<int32_t> remap_;
  schema::ProgramT program_;
  emit::ConstantPool constants_;
  size_t step_ = 0;
};

}  // namespace

LoweredProgram lower(const ir::Graph& graph, const MemoryProblem& memory,
                     const planner::Plan& plan, const planner::LowerBound& bound,
                     const LowerOptions& options) {
  return Lowering(graph, memory, plan, options).run(bound);
}

}  // namespace mote::passes
