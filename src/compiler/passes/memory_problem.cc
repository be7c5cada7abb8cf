#include "compiler/passes/memory_problem.h"

#include <algorithm>
#include <numeric>

#include "compiler/ir/validate.h"

namespace mote::passes {
namespace {

const ir::Tensor& tensor_at(const ir::Graph& graph, const ir::Operator& op, size_t input) {
  return graph.tensors[static_cast<size_t>(op.inputs[input])];
}

const ir::Tensor& output_of(const ir::Graph& graph, const ir::Operator& op) {
  return graph.tensors[static_cast<size_t>(op.outputs[0])];
}

int32_t padding_before(int32_t input, int32_t filter, int32_t stride, int32_t dilation,
                       ir::Padding padding) {
  return static_cast<int32_t>(ir::window_padding_before(input, filter, stride, dilation, padding));
}

// The owner of a tensor's bytes: a RESHAPE of an arena tensor shares its input's buffer.
std::vector<int32_t> alias_owners(const ir::Graph& graph) {
  std::vector<int32_t> owner(graph.tensors.size());
  std::iota(owner.begin(), owner.end(), 0);
  for (const ir::Operator& op : graph.operators) {
    if (op.type != ir::OpType::kReshape) continue;
    const int32_t in = op.inputs[0];
    if (graph.tensors[static_cast<size_t>(in)].is_constant) continue;  // copied from constants
    owner[static_cast<size_t>(op.outputs[0])] = owner[static_cast<size_t>(in)];
  }
  return owner;
}

}  // namespace

kernels::ConvShape conv_shape(const ir::Graph& graph, const ir::Operator& op) {
  const auto& options = std::get<ir::Conv2DOptions>(op.options);
  const ir::Tensor& input = tensor_at(graph, op, 0);
  const ir::Tensor& filter = tensor_at(graph, op, 1);
  const ir::Tensor& output = output_of(graph, op);
  kernels::ConvShape s{};
  s.batches = input.shape[0];
  s.input_h = input.shape[1];
  s.input_w = input.shape[2];
  s.input_c = input.shape[3];
  s.filter_h = filter.shape[1];
  s.filter_w = filter.shape[2];
  s.filter_c = filter.shape[3];
  s.output_h = output.shape[1];
  s.output_w = output.shape[2];
  s.output_c = output.shape[3];
  s.stride_h = options.stride_h;
  s.stride_w = options.stride_w;
  s.dilation_h = options.dilation_h;
  s.dilation_w = options.dilation_w;
  s.pad_h = padding_before(s.input_h, s.filter_h, s.stride_h, s.dilation_h, options.padding);
  s.pad_w = padding_before(s.input_w, s.filter_w, s.stride_w, s.dilation_w, options.padding);
  return s;
}

kernels::DepthwiseShape depthwise_shape(const ir::Graph& graph, const ir::Operator& op) {
  const auto& options = std::get<ir::DepthwiseConv2DOptions>(op.options);
  const ir::Tensor& input = tensor_at(graph, op, 0);
  const ir::Tensor& filter = tensor_at(graph, op, 1);
  const ir::Tensor& output = output_of(graph, op);
  kernels::DepthwiseShape s{};
  s.batches = input.shape[0];
  s.input_h = input.shape[1];
  s.input_w = input.shape[2];
  s.input_c = input.shape[3];
  s.filter_h = filter.shape[1];
  s.filter_w = filter.shape[2];
  s.output_h = output.shape[1];
  s.output_w = output.shape[2];
  s.output_c = output.shape[3];
  s.stride_h = options.stride_h;
  s.stride_w = options.stride_w;
  s.dilation_h = options.dilation_h;
  s.dilation_w = options.dilation_w;
  s.pad_h = padding_before(s.input_h, s.filter_h, s.stride_h, s.dilation_h, options.padding);
  s.pad_w = padding_before(s.input_w, s.filter_w, s.stride_w, s.dilation_w, options.padding);
  return s;
}

uint64_t operator_scratch_bytes(const ir::Graph& graph, const ir::Operator& op,
                                kernels::Extension extension) {
  switch (op.type) {
    case ir::OpType::kConv2D:
      return kernels::conv_scratch_bytes(conv_shape(graph, op), extension);
    case ir::OpType::kDepthwiseConv2D:
      return kernels::depthwise_conv_scratch_bytes(depthwise_shape(graph, op), extension);
    case ir::OpType::kFullyConnected: {
      const ir::Tensor& filter = tensor_at(graph, op, 1);
      return kernels::fully_connected_scratch_bytes(filter.shape[0], extension);
    }
    case ir::OpType::kAveragePool2D:
      return kernels::average_pool_scratch_bytes(output_of(graph, op).shape.back(), extension);
    default:
      return 0;
  }
}

MemoryProblem build_memory_problem(const ir::Graph& graph, kernels::Extension extension,
                                   uint32_t alignment) {
  const size_t num_tensors = graph.tensors.size();
  const int32_t num_steps = static_cast<int32_t>(graph.operators.size());
  const int32_t last_step = num_steps - 1;

  MemoryProblem result;
  result.problem.num_steps = num_steps;
  result.tensor_buffer.assign(num_tensors, kNoBuffer);
  result.op_scratch_buffer.assign(graph.operators.size(), kNoBuffer);
  const std::vector<int32_t> owner = alias_owners(graph);

  // Lifetime of every owner, as the union over the tensors that share its bytes.
  constexpr int32_t kUnset = -1;
  std::vector<int32_t> first(num_tensors, kUnset), last(num_tensors, kUnset);
  std::vector<bool> is_input(num_tensors, false), is_output(num_tensors, false);
  auto touch = [&](int32_t tensor, int32_t step) {
    const size_t o = static_cast<size_t>(owner[static_cast<size_t>(tensor)]);
    first[o] = first[o] == kUnset ? step : std::min(first[o], step);
    last[o] = std::max(last[o], step);
  };
  for (int32_t t : graph.inputs) {
    touch(t, 0);
    is_input[static_cast<size_t>(owner[static_cast<size_t>(t)])] = true;
  }
  for (int32_t step = 0; step < num_steps; ++step) {
    const ir::Operator& op = graph.operators[static_cast<size_t>(step)];
    for (int32_t t : op.inputs) {
      if (t != ir::kNoTensor && !graph.tensors[static_cast<size_t>(t)].is_constant) touch(t, step);
    }
    for (int32_t t : op.outputs) touch(t, step);
  }
  for (int32_t t : graph.outputs) {
    touch(t, last_step);
    is_output[static_cast<size_t>(owner[static_cast<size_t>(t)])] = true;
  }

  // One buffer per owner, in tensor order (deterministic), sized for the largest sharer.
  std::vector<uint64_t> size(num_tensors, 0);
  for (size_t t = 0; t < num_tensors; ++t) {
    const size_t o = static_cast<size_t>(owner[t]);
    size[o] = std::max<uint64_t>(size[o], static_cast<uint64_t>(graph.tensors[t].num_bytes()));
  }
  std::vector<int32_t> owner_buffer(num_tensors, kNoBuffer);
  for (size_t t = 0; t < num_tensors; ++t) {
    if (owner[t] != static_cast<int32_t>(t) || first[t] == kUnset || graph.tensors[t].is_constant) {
      continue;
    }
    planner::Buffer buffer;
    buffer.name = graph.tensors[t].name.empty() ? "tensor " + std::to_string(t)
                                                : graph.tensors[t].name;
    buffer.kind = is_input[t]    ? planner::BufferKind::kInput
                  : is_output[t] ? planner::BufferKind::kOutput
                                 : planner::BufferKind::kActivation;
    buffer.size = size[t];
    buffer.alignment = alignment;
    buffer.first_step = first[t];
    buffer.last_step = last[t];
    owner_buffer[t] = static_cast<int32_t>(result.problem.buffers.size());
    result.problem.buffers.push_back(std::move(buffer));
  }
  result.buffer_owner.assign(num_tensors, ir::kNoTensor);
  for (size_t t = 0; t < num_tensors; ++t) {
    const int32_t b = owner_buffer[static_cast<size_t>(owner[t])];
    if (b == kNoBuffer) continue;
    result.tensor_buffer[t] = b;
    result.buffer_owner[t] = owner[t];
  }

  for (int32_t step = 0; step < num_steps; ++step) {
    const ir::Operator& op = graph.operators[static_cast<size_t>(step)];
    const uint64_t bytes = operator_scratch_bytes(graph, op, extension);
    if (bytes == 0) continue;
    planner::Buffer buffer;
    buffer.name = "scratch of operator " + std::to_string(step) + " (" +
                  std::string(ir::to_string(op.type)) + ")";
    buffer.kind = planner::BufferKind::kScratch;
    buffer.size = bytes;
    buffer.alignment = alignment;
    buffer.first_step = step;
    buffer.last_step = step;
    result.op_scratch_buffer[static_cast<size_t>(step)] =
        static_cast<int32_t>(result.problem.buffers.size());
    result.problem.buffers.push_back(std::move(buffer));
  }
  return result;
}

}  // namespace mote::passes
