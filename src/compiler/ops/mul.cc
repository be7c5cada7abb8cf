// MUL: int8 with TFLite's broadcasting and fused activation.
#include "compiler/ops/binary_arithmetic.h"

namespace mote::ops {

extern const OpDef mul =
    binary_arithmetic<tfl::MulOptions, tfl::BuiltinOptions::MulOptions, &kernels::prepare_mul,
                      &kernels::mul_fits>(tfl::BuiltinOperator::MUL);

}  // namespace mote::ops
