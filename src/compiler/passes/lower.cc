#include "compiler/passes/lower.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"

namespace mote::passes {
namespace {

// Lowering hands the memory problem's buffer indices straight to the emitter.
static_assert(kNoBuffer == emit::kNoPlannerBuffer);


class Lowering {
 public:
  Lowering(const ir::Graph& graph, const MemoryProblem& memory, const LowerOptions& options)
      : graph_(graph), memory_(memory), options_(options),
        remap_(graph.tensors.size(), ir::kNoTensor) {}

  LoweredProgram run() {
    for (size_t step = 0; step < graph_.operators.size(); ++step) {
      step_ = step;
      lower_op(graph_.operators[step]);
    }
    for (int32_t t : graph_.inputs) parts_.program.inputs.push_back(use(t));
    for (int32_t t : graph_.outputs) parts_.program.outputs.push_back(use(t));
    parts_.program.input_layouts = graph_.input_layouts;
    parts_.program.output_layouts = graph_.output_layouts;
    parts_.program.float_inputs = graph_.float_inputs;
    return {std::move(parts_), std::move(remap_)};
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
    int32_t buffer = emit::kNoPlannerBuffer;
    if (source.is_constant) {
      out->location = schema::Location::Constant;
      out->offset = parts_.constants.add(source.data);
    } else if (std::find(memory_.external_inputs.begin(), memory_.external_inputs.end(), index) !=
               memory_.external_inputs.end()) {
      out->location = schema::Location::External;  // the caller's buffer: offset and steps 0
    } else {
      buffer = memory_.tensor_buffer[t];
      if (buffer == kNoBuffer) {
        throw std::logic_error("tensor " + std::to_string(t) + " has no arena buffer");
      }
      const int32_t owner = memory_.buffer_owner[t];
      if (owner != index) out->alias = use(owner);
      out->location = schema::Location::Arena;
      out->state = source.is_variable;
    }
    remap_[t] = static_cast<int32_t>(parts_.program.tensors.size());
    parts_.program.tensors.push_back(std::move(out));
    parts_.tensor_buffer.push_back(buffer);
    return remap_[t];
  }

  void lower_op(const ir::Operator& op) {
    auto out = std::make_unique<schema::OperatorT>();
    out->kind = ops::op_kind(op.type);
    const ops::OpDef& def = ops::op_def(op.type);
    if (def.lower != nullptr) {
      ops::LowerContext context(graph_, step_, parts_.constants);
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
    // Only kinds with a variant table: the others have no extension kernel to prefer.
    if (def.kernel_variant != nullptr) {
      out->portable_kernel = std::string_view(def.kernel_variant(graph_, op, options_.extension)) ==
                             kernels::to_string(kernels::Variant::kPortable);
    }
    parts_.program.operators.push_back(std::move(out));
    parts_.scratch_buffer.push_back(memory_.op_scratch_buffer[step_]);
  }

  const ir::Graph& graph_;
  const MemoryProblem& memory_;
  const LowerOptions& options_;
  std::vector<int32_t> remap_;
  emit::LoweredParts parts_;
  size_t step_ = 0;
};

}  // namespace

LoweredProgram lower(const ir::Graph& graph, const MemoryProblem& memory,
                     const LowerOptions& options) {
  return Lowering(graph, memory, options).run();
}

}  // namespace mote::passes
