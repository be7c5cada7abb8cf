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
  if (input > 1 || a.type != ir::DataType::kInt8 ||  // 16x8, int32: the portable kernel, apart
      !kernels::prepare_broadcast_shape(a.shape.data(), static_cast<int32_t>(a.shape.size()),
                                        b.shape.data(), static_cast<int32_t>(b.shape.size()),
                                        &shape)) {
    return kernels::kNoOverlap;
  }
  return kernels::add_overlap(shape, static_cast<int32_t>(input), extension);
}

}  // namespace

extern const OpDef add = with_rows(with_overlap(
    with_broadcast_variants<&kernels::add_kernel_variant>(
        binary_arithmetic<tfl::AddOptions, tfl::BuiltinOptions::AddOptions, &kernels::prepare_add,
                          &kernels::add_fits, &kernels::prepare_add_int16,
                          &kernels::add_int16_fits,
                          &lower_integer_arithmetic<false, schema::AddOptionsT>>(
            tfl::BuiltinOperator::ADD)),
    add_overlap));

extern const OpDef sub = with_overlap(
    binary_arithmetic<tfl::SubOptions, tfl::BuiltinOptions::SubOptions, &kernels::prepare_add,
                      &kernels::add_fits, &kernels::prepare_add_int16, &kernels::add_int16_fits>(
        tfl::BuiltinOperator::SUB),
    elementwise_overlap);

}  // namespace mote::ops
