#pragma once
// Slow references of RELU, RELU6, TANH, PRELU, SQUARED_DIFFERENCE, RSQRT and LOG_SOFTMAX on a
// graph's operator, written from TensorFlow Lite's int8 kernels (activations.cc, the reference
// integer_ops::Tanh that TensorFlow Lite Micro runs, prelu.h, squared_difference.cc,
// elementwise.cc, log_softmax.h), independent of Mote's kernels. Host test code only.

#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"

namespace mote::testing {

// The slow references' shared arithmetic (operator_model.cc uses it too).
// A per-tensor quantization.
struct Q {
  float scale;
  int32_t zero_point;
};
Q q_of(const ir::Tensor& t);

// A real multiplier as TFLite's QuantizeMultiplier writes it: a Q31 mantissa and a shift.
struct Multiplier {
  int32_t mantissa;
  int shift;
};
// TFLite's QuantizeMultiplier: frexp, a Q31 mantissa, renormalised when rounding reaches 2^31,
// flushed to 0 below 2^-31.
Multiplier quantize(double real);
// TFLite's MultiplyByQuantizedMultiplier on int64: the rounding doubling high multiply, then a
// rounding right shift (halves away from zero).
int64_t multiply(int64_t x, Multiplier m);

// Whether activation_reference computes operators of `type`.
bool has_activation_reference(ir::OpType type);

// The output of `op` for its inputs' int8 values (`values` indexed by tensor; constant inputs
// are read from the graph).
std::vector<int8_t> activation_reference(const ir::Graph& graph, const ir::Operator& op,
                                         const std::vector<std::vector<int8_t>>& values);

}  // namespace mote::testing
