// ADD and SUB: int8 with TFLite's broadcasting and fused activation. TFLite prepares both the
// same way (inputs to a common scale with 20 bits of headroom); SUB subtracts the scaled inputs.
// ADD has kernel variants (src/kernels/elementwise.cc), chosen by the broadcast shape, each with
// its overlap rule.
#include "compiler/ops/binary_arithmetic.h"

namespace mote::ops {
namespace {

// The rule of ADD's kernel variant for input `input` (either may be overwritten when it has the
// output's shape; a broadcast input is read again and again).
kernels::OverlapRule add_overlap(const ir::Graph& g, const ir::Operator& op, size_t input,
                                 kernels::Extension extension) {
  const ir::Tensor& a = g.tensors[op.inputs[0]];
  const ir::Tensor& b = g.tensors[op.inputs[1]];
  kernels::BroadcastShape shape{};
  if (input > 1 || a.type == ir::DataType::kInt16 ||  // 16x8: the portable kernel, apart
      !kernels::prepare_broadcast_shape(a.shape.data(), static_cast<int32_t>(a.shape.size()),
                                        b.shape.data(), static_cast<int32_t>(b.shape.size()),
                                        &shape)) {
    return kernels::kNoOverlap;
  }
  return kernels::add_overlap(shape, static_cast<int32_t>(input), extension);
}

// Row y of either input for row y of the output, where both have the output's shape (batch 1).
std::optional<RowReach> same_shape_rows(const ir::Graph& g, const ir::Operator& op,
                                        size_t input) {
  const ir::Tensor& out = g.tensors[op.outputs[0]];
  if (input > 1 || out.type != ir::DataType::kInt8 || out.shape.size() != 4 || out.shape[0] != 1) {
    return std::nullopt;
  }
  for (size_t k = 0; k < 2; ++k) {
    if (g.tensors[op.inputs[k]].shape != out.shape) return std::nullopt;
  }
  return RowReach{};
}

constexpr OpDef with_rows(OpDef def) {
  def.row_reach = same_shape_rows;
  return def;
}

}  // namespace

extern const OpDef add = with_rows(with_overlap(
    with_broadcast_variants<&kernels::add_kernel_variant>(
        binary_arithmetic<tfl::AddOptions, tfl::BuiltinOptions::AddOptions, &kernels::prepare_add,
                          &kernels::add_fits, &kernels::prepare_add_int16,
                          &kernels::add_int16_fits>(tfl::BuiltinOperator::ADD)),
    add_overlap));

extern const OpDef sub = with_overlap(
    binary_arithmetic<tfl::SubOptions, tfl::BuiltinOptions::SubOptions, &kernels::prepare_add,
                      &kernels::add_fits, &kernels::prepare_add_int16, &kernels::add_int16_fits>(
        tfl::BuiltinOperator::SUB),
    elementwise_overlap);

}  // namespace mote::ops
