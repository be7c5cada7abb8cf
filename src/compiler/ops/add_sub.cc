// ADD and SUB: int8 with TFLite's broadcasting and fused activation. TFLite prepares both the
// same way (inputs to a common scale with 20 bits of headroom); SUB subtracts the scaled inputs.
// ADD has kernel variants (src/kernels/elementwise.cc), chosen by the broadcast shape.
#include "compiler/ops/binary_arithmetic.h"

namespace mote::ops {

extern const OpDef add = with_broadcast_variants<&kernels::add_kernel_variant>(
    binary_arithmetic<tfl::AddOptions, tfl::BuiltinOptions::AddOptions, &kernels::prepare_add,
                      &kernels::add_fits>(tfl::BuiltinOperator::ADD));

extern const OpDef sub =
    binary_arithmetic<tfl::SubOptions, tfl::BuiltinOptions::SubOptions, &kernels::prepare_add,
                      &kernels::add_fits>(tfl::BuiltinOperator::SUB);

}  // namespace mote::ops
