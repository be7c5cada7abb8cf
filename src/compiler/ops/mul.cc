// MUL: int8 with TFLite's broadcasting and fused activation.
#include "compiler/ops/binary_arithmetic.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {

extern const OpDef mul{
    .builtin_code = builtin(tfl::BuiltinOperator::MUL),
    .read_options = read_fused_activation<tfl::MulOptions, tfl::BuiltinOptions::MulOptions>,
    .write_options = write_fused_activation<tfl::MulOptionsT>,
    .check = check_binary_arithmetic<&kernels::prepare_mul, &kernels::mul_fits>,
    .lower = lower_binary_arithmetic<&kernels::prepare_mul>,
    .describe = describe_activation};

}  // namespace mote::ops
