// CAST between the integer types TFLM's cast.cc converts (int8, int16, int32 and uint32 in
// either direction, as C++'s static_cast: a narrower type wraps), on plain tensors: TFLM casts
// the stored integers and ignores any quantization, which Mote refuses rather than guess.
#include "compiler/ops/checker.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

bool castable(DataType t) {
  return t == DataType::kInt8 || t == DataType::kInt16 || t == DataType::kInt32 ||
         t == DataType::kUInt32;
}

void check(Checker& c) {
  c.no_options();
  const Tensor& x = c.in(0);
  const Tensor& y = c.out();
  for (size_t k : {size_t{0}, Checker::kOutput}) {
    const Tensor& t = c.operand(k);
    if (!castable(t.type)) {
      c.fail(c.label(k) + " has type " + std::string(to_string(t.type)) +
             "; Mote casts between int8, int16, int32 and uint32");
    }
    if (!t.quantization.empty()) {
      c.fail(c.label(k) + " is quantized; CAST converts plain integers (TFLM ignores the "
             "quantization: QUANTIZE or DEQUANTIZE is what converts quantized values)");
    }
  }
  if (x.is_constant) c.fail(c.in_label(0) + " is a constant; expected an activation");
  if (x.num_elements() != y.num_elements()) {
    c.fail(c.out_label() + " has shape " + shape_string(y.shape) + ", " +
           std::to_string(y.num_elements()) + " elements; " + c.in_label(0) + " has " +
           std::to_string(x.num_elements()));
  }
}

}  // namespace

extern const OpDef cast{.builtin_code = builtin(tfl::BuiltinOperator::CAST),
                        .read_options = read_empty<tfl::BuiltinOptions::CastOptions>,
                        .write_options = write_empty<void>, .inputs = {1, 1}, .check = check,
                        .plain_output = true};

}  // namespace mote::ops
