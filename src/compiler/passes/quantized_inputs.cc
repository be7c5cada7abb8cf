#include "compiler/passes/quantized_inputs.h"

#include <algorithm>
#include <numeric>

namespace mote::passes {

QuantizedInputs quantize_float_inputs(const ir::Graph& graph) {
  QuantizedInputs out;
  out.graph = graph;
  ir::Graph& g = out.graph;
  out.model_index.resize(g.operators.size());
  std::iota(out.model_index.begin(), out.model_index.end(), 0);
  auto listed = [](const std::vector<int32_t>& list, int32_t t) {
    return std::count(list.begin(), list.end(), t);
  };
  std::vector<bool> removed(g.operators.size(), false);
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const int32_t input = g.inputs[i];
    if (g.tensors[static_cast<size_t>(input)].type != ir::DataType::kFloat32 ||
        listed(g.inputs, input) != 1 || listed(g.outputs, input) != 0) {
      continue;
    }
    // Its one reader, read once.
    int32_t reader = -1, reads = 0;
    for (size_t k = 0; k < g.operators.size(); ++k) {
      const auto n = listed(g.operators[k].inputs, input);
      if (n > 0) reader = static_cast<int32_t>(k);
      reads += static_cast<int32_t>(n);
    }
    if (reads != 1) continue;
    const ir::Operator& quantize = g.operators[static_cast<size_t>(reader)];
    if (quantize.type != ir::OpType::kQuantize || quantize.inputs[0] != input) continue;
    const int32_t held = quantize.outputs[0];
    const ir::Tensor& q = g.tensors[static_cast<size_t>(held)];
    if ((q.type != ir::DataType::kInt8 && q.type != ir::DataType::kInt16) ||
        q.quantization.scale.size() != 1 || listed(g.inputs, held) != 0 ||
        listed(g.outputs, held) != 0) {
      continue;
    }
    g.inputs[i] = held;
    g.float_inputs.resize(g.inputs.size(), false);
    g.float_inputs[i] = true;
    removed[static_cast<size_t>(reader)] = true;
    ++out.quantized;
  }
  if (out.quantized == 0) return out;
  size_t kept = 0;
  for (size_t k = 0; k < g.operators.size(); ++k) {
    if (removed[k]) continue;
    out.model_index[kept] = static_cast<int32_t>(k);
    if (kept != k) g.operators[kept] = std::move(g.operators[k]);  // never onto itself
    ++kept;
  }
  g.operators.resize(kept);
  out.model_index.resize(kept);
  return out;
}

}  // namespace mote::passes
