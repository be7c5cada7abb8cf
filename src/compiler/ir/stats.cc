#include "compiler/ir/stats.h"

#include <vector>

namespace mote::ir {

int64_t operator_constant_bytes(const Graph& g, const Operator& op) {
  int64_t total = 0;
  for (size_t k = 0; k < op.inputs.size(); ++k) {
    const int32_t t = op.inputs[k];
    if (t == kNoTensor || !g.tensors[t].is_constant) continue;
    bool repeated = false;
    for (size_t j = 0; j < k; ++j) repeated = repeated || op.inputs[j] == t;
    if (!repeated) total += static_cast<int64_t>(g.tensors[t].data.size());
  }
  return total;
}

int64_t constant_bytes(const Graph& g) {
  int64_t total = 0;
  for (const Tensor& t : g.tensors) {
    if (t.is_constant) total += static_cast<int64_t>(t.data.size());
  }
  return total;
}

int64_t activation_bytes(const Graph& g) {
  std::vector<bool> used(g.tensors.size(), false);
  auto mark = [&](int32_t t) {
    if (t != kNoTensor && !g.tensors[t].is_constant) used[t] = true;
  };
  for (int32_t t : g.inputs) mark(t);
  for (int32_t t : g.outputs) mark(t);
  for (const Operator& op : g.operators) {
    for (int32_t t : op.inputs) mark(t);
    for (int32_t t : op.outputs) mark(t);
  }
  int64_t total = 0;
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    if (used[i]) total += g.tensors[i].num_bytes();
  }
  return total;
}

}  // namespace mote::ir
