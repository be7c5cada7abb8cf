// MAXIMUM and MINIMUM: int8 with TFLite's broadcasting. TFLite compares the raw int8 values and
// writes the winner unchanged, whatever the quantizations; so does Mote.
#include "compiler/ops/checker.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

ir::Options read(const TfliteOptions& t) {
  t.none(tfl::BuiltinOptions::MaximumMinimumOptions);
  return {};
}
void write(const ir::Operator&, tfl::BuiltinOptionsUnion& out) {
  out.Set(tfl::MaximumMinimumOptionsT{});
}

void check(Checker& c) {
  c.no_options();
  c.expect_binary_elementwise();
}

}  // namespace

extern const OpDef maximum{.builtin_code = builtin(tfl::BuiltinOperator::MAXIMUM),
                           .read_options = read, .write_options = write, .check = check};

extern const OpDef minimum{.builtin_code = builtin(tfl::BuiltinOperator::MINIMUM),
                           .read_options = read, .write_options = write, .check = check};

}  // namespace mote::ops
