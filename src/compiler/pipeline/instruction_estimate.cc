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

namespace {

// The output pixels of a row across which an extension's whole-map kernel of an operator shares
// its weight loads, where those loads are most of its instructions: the mve conv and depthwise
// kernels, in blocks of four pixels (src/kernels/mve/). A row call sees one row: narrower rows
// lose the sharing. (The dsp conv shares across two pixels, but its loads are a smaller part:
// MLPerf Tiny's streaming wake word loses 3 % streamed on the M4, 55 % on the M55.)
int32_t pixels_sharing_loads(kernels::Extension extension, ir::OpType type) {
  const bool mve = extension == kernels::Extension::kMve;
  return mve && (type == ir::OpType::kConv2D || type == ir::OpType::kDepthwiseConv2D) ? 4 : 1;
}

}  // namespace

std::optional<double> stage_extra(const ir::Graph& graph, const passes::RowStage& stage,
                                  kernels::Extension extension) {
  const std::optional<double> call = target::row_call_cost(extension);
  if (!call) return std::nullopt;
  double extra = *call * static_cast<double>(stage.schedule.size());
  // A member whose rows are narrower than the pixels its whole-map kernel shares loads across
  // (1-D audio maps are one pixel wide) reloads its weights for each row: its instructions grow
  // by about shared / width.
  for (int32_t k = stage.first; k <= stage.last; ++k) {
    const ir::Operator& op = graph.operators[static_cast<size_t>(k)];
    const int32_t shared = pixels_sharing_loads(extension, op.type);
    const std::vector<int32_t>& dims = graph.tensors[static_cast<size_t>(op.outputs[0])].shape;
    if (shared <= 1 || dims.size() != 4 || dims[2] <= 0 || dims[2] >= shared) continue;
    const std::optional<double> whole = operator_instructions(graph, op, extension, false);
    if (!whole) return std::nullopt;
    extra += *whole * (static_cast<double>(shared) / dims[2] - 1.0);
  }
  return extra;
}

}  // namespace mote::pipeline
