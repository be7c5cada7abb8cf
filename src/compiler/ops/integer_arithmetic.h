#pragma once
// The int32 forms of the binary arithmetic (TFLM's int32 ADD, MUL, DIV, MINIMUM, MAXIMUM): plain
// integers, no quantization, TFLite's broadcasting; the options table carries the clamp alone.
#include <cstdint>
#include <limits>

#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"

namespace mote::ops {

// TFLite's CalculateActivationRange for int32: the fused activation's clamp in plain integers.
inline std::pair<int32_t, int32_t> int32_activation_range(ir::Activation a) {
  constexpr int32_t lo = std::numeric_limits<int32_t>::min();
  constexpr int32_t hi = std::numeric_limits<int32_t>::max();
  switch (a) {
    case ir::Activation::kNone: return {lo, hi};
    case ir::Activation::kRelu: return {0, hi};
    case ir::Activation::kReluN1To1: return {-1, 1};
    case ir::Activation::kRelu6: return {0, 6};
  }
  return {lo, hi};
}

// The clamp into `Table` (schema::MulOptionsT or AddOptionsT): the fused activation's where TFLM
// applies it (MUL, DIV), the whole int32 range where it does not (its int32 ADD ignores it).
template <bool kActivation, typename Table = schema::MulOptionsT>
void lower_integer_arithmetic(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<ir::ElementwiseOptions>(ctx.op().options);
  const auto range = int32_activation_range(kActivation ? o.activation : ir::Activation::kNone);
  Table t;
  t.activation_min = range.first;
  t.activation_max = range.second;
  out.options.Set(std::move(t));
}

}  // namespace mote::ops
