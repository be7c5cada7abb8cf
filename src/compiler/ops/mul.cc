// MUL: int8 or int16 with TFLite's broadcasting and fused activation; int8 kernel variants
// (src/kernels/elementwise.cc) chosen by the broadcast shape, int16 the portable kernel. Int8 of
// equal shapes runs in row-streamed stages (the second half of SiLU, x * sigmoid(x)), and by a
// constant that does not vary along H (a PReLU written out: alpha * x per channel).
#include "compiler/ops/binary_arithmetic.h"

namespace mote::ops {

extern const OpDef mul = with_rows(with_broadcast_variants<&kernels::mul_kernel_variant>(
    binary_arithmetic<tfl::MulOptions, tfl::BuiltinOptions::MulOptions, &kernels::prepare_mul,
                      &kernels::mul_fits, &kernels::prepare_mul, &kernels::mul_int16_fits,
                      &lower_integer_arithmetic<true>>(
        tfl::BuiltinOperator::MUL)));

}  // namespace mote::ops
