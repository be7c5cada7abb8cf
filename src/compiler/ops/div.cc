// DIV: int32 (plain, no quantization), as TFLM's div.cc runs it at 90b983c: C++'s truncating
// division with TFLite's broadcasting, then the fused activation's clamp. TFLM's int8 DIV is not
// supported. A zero divisor, which TFLM leaves undefined, gives 0 (mote/kernels/integer.h); a
// constant divisor holding a zero is refused.
#include <cstring>

#include "compiler/ops/checker.h"
#include "compiler/ops/integer_arithmetic.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

void check(Checker& c) {
  c.options<ir::ElementwiseOptions>();
  if (c.out().type != DataType::kInt32) {
    c.fail(c.out_label() + " has type " + std::string(to_string(c.out().type)) +
           "; Mote's DIV takes plain int32 (TFLM's int8 and float DIV are not supported)");
  }
  c.expect_integer_binary();
  const Tensor& divisor = c.in(1);
  if (divisor.is_constant) {
    for (size_t i = 0; i < divisor.data.size(); i += sizeof(int32_t)) {
      int32_t v;
      std::memcpy(&v, divisor.data.data() + i, sizeof v);
      if (v == 0) c.fail(c.in_label(1) + " (the divisor) holds a zero");
    }
  }
}

}  // namespace

extern const OpDef div{.builtin_code = builtin(tfl::BuiltinOperator::DIV),
                       .read_options =
                           read_fused_activation<tfl::DivOptions, tfl::BuiltinOptions::DivOptions>,
                       .write_options = write_fused_activation<tfl::DivOptionsT>,
                       .check = check, .lower = lower_integer_arithmetic<true>,
                       .describe = describe_activation};

}  // namespace mote::ops
