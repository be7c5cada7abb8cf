// ADD and SUB: int8 with TFLite's broadcasting and fused activation. TFLite prepares both the
// same way (inputs to a common scale with 20 bits of headroom); SUB subtracts the scaled inputs.
#include "compiler/ops/binary_arithmetic.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {

extern const OpDef add{
    .builtin_code = builtin(tfl::BuiltinOperator::ADD),
    .read_options = read_fused_activation<tfl::AddOptions, tfl::BuiltinOptions::AddOptions>,
    .write_options = write_fused_activation<tfl::AddOptionsT>,
    .check = check_binary_arithmetic<&kernels::prepare_add, &kernels::add_fits>,
    .lower = lower_binary_arithmetic<&kernels::prepare_add>,
    .describe = describe_activation};

extern const OpDef sub{
    .builtin_code = builtin(tfl::BuiltinOperator::SUB),
    .read_options = read_fused_activation<tfl::SubOptions, tfl::BuiltinOptions::SubOptions>,
    .write_options = write_fused_activation<tfl::SubOptionsT>,
    .check = check_binary_arithmetic<&kernels::prepare_add, &kernels::add_fits>,
    .lower = lower_binary_arithmetic<&kernels::prepare_add>,
    .describe = describe_activation};

}  // namespace mote::ops
