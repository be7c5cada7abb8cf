#include "compiler/pipeline/instruction_estimate.h"

#include "compiler/ops/op_def.h"
#include "compiler/target/instruction_costs.h"

namespace mote::pipeline {
namespace {

std::optional<double> operator_instructions(const ir::Graph& graph, const ir::Operator& op,
                                            kernels::Extension extension, bool in_place) {
  const std::optional<target::KernelCost> cost =
      target::kernel_cost(extension, ir::to_string(op.type), in_place);
  if (!cost) return std::nullopt;
  double units = 0;
  if (cost->per_mac) {
    units = static_cast<double>(ops::operator_macs(graph, op));
  } else {
    for (int32_t t : op.outputs) {
      units += static_cast<double>(graph.tensors[static_cast<size_t>(t)].num_elements());
    }
  }
  return cost->instructions * units;
}

}  // namespace

std::optional<double> estimated_instructions(const ir::Graph& graph, kernels::Extension extension) {
  double total = 0;
  for (const ir::Operator& op : graph.operators) {
    const std::optional<double> one = operator_instructions(graph, op, extension, false);
    if (!one) return std::nullopt;
    total += *one;
  }
  return total;
}

std::optional<double> in_place_extra(const ir::Graph& graph, const std::vector<bool>& in_place,
                                     kernels::Extension extension) {
  double extra = 0;
  for (size_t k = 0; k < in_place.size() && k < graph.operators.size(); ++k) {
    if (!in_place[k]) continue;
    const ir::Operator& op = graph.operators[k];
    const std::optional<double> whole = operator_instructions(graph, op, extension, false);
    const std::optional<double> plane = operator_instructions(graph, op, extension, true);
    if (!whole || !plane) return std::nullopt;
    extra += *plane - *whole;
  }
  return extra;
}

std::optional<double> stage_extra(const passes::RowStage& stage, kernels::Extension extension) {
  const std::optional<double> call = target::row_call_cost(extension);
  if (!call) return std::nullopt;
  return *call * static_cast<double>(stage.schedule.size());
}

}  // namespace mote::pipeline
