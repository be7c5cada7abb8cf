#pragma once
// The binary arithmetic operators (add, subtract, multiply): int8 with TFLite's broadcasting and a
// fused activation. Their definitions differ only in the kernel's prepare function (the scales
// and zero points of both inputs and the output, and the activation's clamp) and the options
// table it fills.
#include <type_traits>

#include "compiler/emit/kernel_options.h"
#include "compiler/ops/checker.h"
#include "compiler/ops/integer_arithmetic.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {

// Either operand may be a constant; the scales must leave the kernel's int32 rescaling room
// (`kFits`, the runtime's own bound).
// The 16x8 form (int16 operands) where kPrepare16 and kFits16 are given; the plain int32 form
// (TFLM's int32 ADD and MUL) where kInt32.
template <auto kPrepare, auto kFits, auto kPrepare16 = nullptr, auto kFits16 = nullptr,
          bool kInt32 = false>
void check_binary_arithmetic(Checker& c) {
  c.options<ir::ElementwiseOptions>();
  if (kInt32 && c.out().type == DataType::kInt32) {
    c.expect_integer_binary();
    return;
  }
  constexpr bool kHas16 = !std::is_null_pointer_v<decltype(kPrepare16)>;
  const DataType type = kHas16 ? c.activation_type() : DataType::kInt8;
  c.expect_binary_elementwise(/*constants=*/true, type);
  const ir::Tensor &a = c.in(0), &b = c.in(1), &y = c.out();
  bool fits = false;
  if constexpr (kHas16) {
    if (type == DataType::kInt16) {
      fits = kFits16(kPrepare16(scale_of(a), zero_point_of(a), scale_of(b), zero_point_of(b),
                                scale_of(y), zero_point_of(y), -32768, 32767));
    }
  }
  if (type == DataType::kInt8) {
    fits = kFits(kPrepare(scale_of(a), zero_point_of(a), scale_of(b), zero_point_of(b),
                          scale_of(y), zero_point_of(y), -128, 127));
  }
  if (!fits) {
    c.fail("input scales " + num(scale_of(a)) + " and " + num(scale_of(b)) + " with output scale " +
           num(scale_of(y)) + " overflow the int32 rescaling (the output scale is too small)");
  }
}

// `kInt32Lower`: the int32 form's lowering (lower_integer_arithmetic), or nullptr.
template <auto kPrepare, auto kPrepare16 = nullptr, auto kInt32Lower = nullptr>
void lower_binary_arithmetic(LowerContext& ctx, schema::OperatorT& out) {
  if constexpr (!std::is_null_pointer_v<decltype(kInt32Lower)>) {
    if (ctx.out().type == ir::DataType::kInt32) {
      kInt32Lower(ctx, out);
      return;
    }
  }
  const auto& o = std::get<ir::ElementwiseOptions>(ctx.op().options);
  const ir::Tensor &a = ctx.in(0), &b = ctx.in(1), &y = ctx.out();
  const kernels::ActivationRange range = ctx.activation_range(o.activation);
  auto prepare = kPrepare;
  if constexpr (!std::is_null_pointer_v<decltype(kPrepare16)>) {
    if (y.type == ir::DataType::kInt16) prepare = kPrepare16;
  }
  out.options.Set(emit::program_options(prepare(scale_of(a), zero_point_of(a), scale_of(b),
                                                zero_point_of(b), scale_of(y), zero_point_of(y),
                                                range.min, range.max)));
}

// The definition of one of them: its TFLite code and options table (fused activation only), the
// kernel's prepare function and its bound; `kInt32Lower` the plain int32 form's lowering where
// it has one.
template <typename Table, tfl::BuiltinOptions kTable, auto kPrepare, auto kFits,
          auto kPrepare16 = nullptr, auto kFits16 = nullptr, auto kInt32Lower = nullptr>
constexpr OpDef binary_arithmetic(tfl::BuiltinOperator code) {
  constexpr bool kInt32 = !std::is_null_pointer_v<decltype(kInt32Lower)>;
  return OpDef{.builtin_code = builtin(code),
               .read_options = read_fused_activation<Table, kTable>,
               .write_options = write_fused_activation<typename Table::NativeTableType>,
               .check = check_binary_arithmetic<kPrepare, kFits, kPrepare16, kFits16, kInt32>,
               .lower = lower_binary_arithmetic<kPrepare, kPrepare16, kInt32Lower>,
               .int16_activations = !std::is_null_pointer_v<decltype(kPrepare16)>,
               .describe = describe_activation};
}

constexpr OpDef with_overlap(OpDef def, decltype(OpDef::overlap) overlap) {
  def.overlap = overlap;
  return def;
}

// Members of row-streamed stages (ADD, MUL): int8, each input an activation of the output's shape
// (row y for row y of the output) or a constant that does not vary along H (elementwise_rows).
constexpr OpDef with_rows(OpDef def) {
  def.row_reach = elementwise_rows;
  return def;
}

// `kernel_variant` of an operator whose variant table is keyed by the broadcast shape (ADD, MUL):
// with_broadcast_variants<&kernels::add_kernel_variant>(binary_arithmetic<...>(code)).
template <auto kVariant>
const char* broadcast_variant(const ir::Graph& g, const ir::Operator& op,
                              kernels::Extension extension) {
  if (g.tensors[op.outputs[0]].type == ir::DataType::kInt16) return "portable 16x8";
  if (g.tensors[op.outputs[0]].type == ir::DataType::kInt32) return "portable int32";
  const ir::Tensor& a = g.tensors[op.inputs[0]];
  const ir::Tensor& b = g.tensors[op.inputs[1]];
  kernels::BroadcastShape shape{};
  if (!kernels::prepare_broadcast_shape(a.shape.data(), static_cast<int32_t>(a.shape.size()),
                                        b.shape.data(), static_cast<int32_t>(b.shape.size()),
                                        &shape)) {
    return kernels::to_string(kernels::Variant::kPortable);  // refused by the check anyway
  }
  return kVariant(shape, extension);
}

template <auto kVariant>
constexpr OpDef with_broadcast_variants(OpDef def) {
  def.kernel_variant = broadcast_variant<kVariant>;
  return def;
}

}  // namespace mote::ops
