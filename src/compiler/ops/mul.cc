// MUL: int8 with TFLite's broadcasting and fused activation; kernel variants
// (src/kernels/elementwise.cc) chosen by the broadcast shape.
#include "compiler/ops/binary_arithmetic.h"

namespace mote::ops {

extern const OpDef mul = with_broadcast_variants<&kernels::mul_kernel_variant>(
    binary_arithmetic<tfl::MulOptions, tfl::BuiltinOptions::MulOptions, &kernels::prepare_mul,
                      &kernels::mul_fits>(tfl::BuiltinOperator::MUL));

}  // namespace mote::ops
