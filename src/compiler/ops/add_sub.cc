// ADD and SUB: int8 with TFLite's broadcasting and fused activation. TFLite prepares both the
// same way (inputs to a common scale with 20 bits of headroom); SUB subtracts the scaled inputs.
#include "compiler/ops/binary_arithmetic.h"
#include "mote/kernels/add.h"

namespace mote::ops {
namespace {

// ADD has a kernel variant table (src/kernels/add.cc), keyed by the broadcast shape.
const char* add_variant(const ir::Graph& g, const ir::Operator& op, kernels::Extension e) {
  const auto& a = g.tensors[op.inputs[0]].shape;
  const auto& b = g.tensors[op.inputs[1]].shape;
  kernels::BroadcastShape shape{};
  if (!kernels::prepare_broadcast_shape(a.data(), static_cast<int32_t>(a.size()), b.data(),
                                        static_cast<int32_t>(b.size()), &shape)) {
    return "portable";
  }
  return kernels::add_kernel_variant(shape, e);
}

constexpr OpDef add_def() {
  OpDef def = binary_arithmetic<tfl::AddOptions, tfl::BuiltinOptions::AddOptions,
                                &kernels::prepare_add, &kernels::add_fits>(tfl::BuiltinOperator::ADD);
  def.kernel_variant = add_variant;
  return def;
}

}  // namespace

extern const OpDef add = add_def();

extern const OpDef sub =
    binary_arithmetic<tfl::SubOptions, tfl::BuiltinOptions::SubOptions, &kernels::prepare_add,
                      &kernels::add_fits>(tfl::BuiltinOperator::SUB);

}  // namespace mote::ops
