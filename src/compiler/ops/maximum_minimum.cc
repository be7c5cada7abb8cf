// MAXIMUM and MINIMUM: int8 or int16 with TFLite's broadcasting, either operand may be a
// constant (a clamp: MINIMUM(x, 6)). TFLite compares the raw values and writes the winner
// unchanged, whatever the quantizations; so does Mote. Int8 runs in row-streamed stages (a PReLU
// written out as MAXIMUM(x, alpha * x), a clamp by a constant that does not vary along H).
#include "compiler/ops/checker.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

void check(Checker& c) {
  c.no_options();
  if (c.out().type == DataType::kInt32) {
    c.expect_integer_binary();  // plain int32, as TFLM's MAXIMUM and MINIMUM take it
    return;
  }
  c.expect_binary_elementwise(/*constants=*/true, c.activation_type());
}

}  // namespace

extern const OpDef maximum{.builtin_code = builtin(tfl::BuiltinOperator::MAXIMUM),
                           .read_options = read_empty<tfl::BuiltinOptions::MaximumMinimumOptions>,
                           .write_options = write_empty<tfl::MaximumMinimumOptionsT>,
                           .check = check, .int16_activations = true,
                           .row_reach = elementwise_rows};

extern const OpDef minimum{.builtin_code = builtin(tfl::BuiltinOperator::MINIMUM),
                           .read_options = read_empty<tfl::BuiltinOptions::MaximumMinimumOptions>,
                           .write_options = write_empty<tfl::MaximumMinimumOptionsT>,
                           .check = check, .int16_activations = true,
                           .row_reach = elementwise_rows};

}  // namespace mote::ops
