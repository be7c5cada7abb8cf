#include "compiler/passes/fold_pads.h"

#include <algorithm>
#include <optional>

#include "compiler/ops/lower_context.h"
#include "compiler/ops/shapes.h"

namespace mote::passes {
namespace {

// One axis of a window as the kernel runs it: leading padding `pad`, the rest implied by the
// output size.
struct Axis {
  int64_t input, output, extent, stride, pad;
};

// The runtime's load-time rule for a window axis: leading and trailing padding each at most the
// window's extent less one (so every window reads at least one input row), the last row reached.
bool axis_fits(const Axis& a) {
  const int64_t trailing = (a.output - 1) * a.stride + a.extent - a.input - a.pad;
  return a.pad >= 0 && a.pad <= a.extent - 1 && trailing > -a.stride && trailing <= a.extent - 1;
}

// Height and width axes of a window operator as folded, or nullopt for other operators.
std::optional<std::pair<Axis, Axis>> window_axes(const ir::Graph& g, const ir::Operator& op) {
  auto axes = [](const auto& s) {
    return std::pair{Axis{s.input_h, s.output_h, int64_t{s.filter_h - 1} * s.dilation_h + 1,
                          s.stride_h, s.pad_h},
                     Axis{s.input_w, s.output_w, int64_t{s.filter_w - 1} * s.dilation_w + 1,
                          s.stride_w, s.pad_w}};
  };
  switch (op.type) {
    case ir::OpType::kConv2D:
      return axes(ops::conv_shape(g, op));
    case ir::OpType::kDepthwiseConv2D:
      return axes(ops::depthwise_shape(g, op));
    case ir::OpType::kMaxPool2D: {
      const kernels::PoolParams p = ops::pool_params(g, op);
      return std::pair{Axis{p.input_h, p.output_h, p.filter_h, p.stride_h, p.pad_h},
                       Axis{p.input_w, p.output_w, p.filter_w, p.stride_w, p.pad_w}};
    }
    default:
      return std::nullopt;
  }
}

ir::FoldedPad* folded_pad_of(ir::Operator& op) {
  if (auto* o = std::get_if<ir::Conv2DOptions>(&op.options)) return &o->folded;
  if (auto* o = std::get_if<ir::DepthwiseConv2DOptions>(&op.options)) return &o->folded;
  if (auto* o = std::get_if<ir::Pool2DOptions>(&op.options)) return &o->folded;
  return nullptr;
}

bool is_relu(ir::Activation a) {
  return a == ir::Activation::kRelu || a == ir::Activation::kRelu6;
}

// Whether `tensor`'s values are never below its zero point: a ReLU or ReLU6 (fused or not, over
// the tensor's own quantization) wrote it.
bool never_below_zero_point(const ir::Graph& g, int32_t tensor) {
  for (const ir::Operator& op : g.operators) {
    if (op.outputs.empty() || op.outputs[0] != tensor) continue;
    if (op.type == ir::OpType::kRelu || op.type == ir::OpType::kRelu6) return true;
    return std::visit(
        [](const auto& o) {
          if constexpr (requires { o.activation; }) return is_relu(o.activation);
          return false;
        },
        op.options);
  }
  return false;
}

// A max pool gives TFLite's result on the PAD's output without its padding (pad value `value`).
bool padding_never_wins(const ir::Graph& g, const ir::Operator& pool, int32_t pad_input,
                        int64_t value) {
  const auto& o = std::get<ir::Pool2DOptions>(pool.options);
  return value == -128 || is_relu(o.activation) || never_below_zero_point(g, pad_input);
}

// The consumer with the PAD `p` (TFLite's paddings, [4][2]) folded in, reading `pad_input`, or
// nullopt where that would not be exact or the runtime would not accept the window.
std::optional<ir::Operator> folded_consumer(const ir::Graph& g, const ir::Operator& consumer,
                                            int32_t pad_input, const std::vector<int32_t>& p) {
  ir::Operator folded = consumer;
  ir::FoldedPad* pad = folded_pad_of(folded);
  if (pad == nullptr || consumer.type == ir::OpType::kAveragePool2D) return std::nullopt;
  if (consumer.type == ir::OpType::kMaxPool2D &&
      !padding_never_wins(g, consumer, pad_input,
                          g.tensors[static_cast<size_t>(pad_input)].quantization.zero_point[0])) {
    return std::nullopt;
  }
  pad->top += p[2];
  pad->bottom += p[3];
  pad->left += p[4];
  pad->right += p[5];
  folded.inputs[0] = pad_input;
  const auto axes = window_axes(g, folded);
  if (!axes || !axis_fits(axes->first) || !axis_fits(axes->second)) return std::nullopt;
  return folded;
}

}  // namespace

FoldedPads fold_pads(const ir::Graph& graph) {
  FoldedPads out;
  out.graph = graph;
  ir::Graph& g = out.graph;
  // Readers of each tensor (a graph output counts as one more).
  std::vector<int32_t> readers(g.tensors.size(), 0);
  for (const ir::Operator& op : g.operators) {
    for (int32_t t : op.inputs) {
      if (t != ir::kNoTensor) ++readers[static_cast<size_t>(t)];
    }
  }
  for (int32_t t : g.outputs) ++readers[static_cast<size_t>(t)];
  std::vector<bool> removed(g.operators.size(), false);
  for (size_t k = 0; k < g.operators.size(); ++k) {
    const ir::Operator& pad = g.operators[k];
    if (pad.type != ir::OpType::kPad) continue;
    const ir::Tensor& input = g.tensors[static_cast<size_t>(pad.inputs[0])];
    const int32_t padded = pad.outputs[0];
    if (input.shape.size() != 4 || input.type != ir::DataType::kInt8 || input.is_constant ||
        input.quantization.zero_point.size() != 1 || readers[static_cast<size_t>(padded)] != 1) {
      continue;
    }
    const std::vector<int32_t> p = ops::int_values(g.tensors[static_cast<size_t>(pad.inputs[1])]);
    if (p.size() != 8 || p[0] != 0 || p[1] != 0 || p[6] != 0 || p[7] != 0) continue;
    for (size_t c = k + 1; c < g.operators.size(); ++c) {
      ir::Operator& consumer = g.operators[c];
      if (std::find(consumer.inputs.begin(), consumer.inputs.end(), padded) ==
          consumer.inputs.end()) {
        continue;
      }
      if (consumer.inputs[0] == padded) {
        if (auto folded = folded_consumer(g, consumer, pad.inputs[0], p)) {
          consumer = std::move(*folded);
          removed[k] = true;
          ++out.folded;
        }
      }
      break;
    }
  }
  size_t kept = 0;
  for (size_t k = 0; k < g.operators.size(); ++k) {
    if (removed[k]) continue;
    out.model_index.push_back(static_cast<int32_t>(k));
    if (kept != k) g.operators[kept] = std::move(g.operators[k]);  // never onto itself
    ++kept;
  }
  g.operators.resize(kept);
  return out;
}

}  // namespace mote::passes
