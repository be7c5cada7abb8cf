#include "compiler/ops/op_def.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "compiler/ops/lower_context.h"

namespace mote::ops {
namespace {

// TFLite's form of 0.0046875 (0.6 * 2^-7) rounds x * 0.6 to an integer, then by 2^7 again:
// 19306 * 0.0046875 = 90.496875 becomes 91. Rounding once gives 90, and every result within
// 256 steps of zero lies within half a step (plus 2^-12) of the exact product.
TEST(QuantizeMultiplierRoundingOnce, RoundsOnce) {
  const kernels::QuantizedMultiplier tflite = kernels::quantize_multiplier(0.0046875);
  EXPECT_EQ(kernels::multiply_by_quantized_multiplier(19306, tflite.multiplier, tflite.shift), 91);
  const kernels::QuantizedMultiplier once = quantize_multiplier_rounding_once(0.0046875);
  EXPECT_EQ(once.shift, 0);
  EXPECT_EQ(kernels::multiply_by_quantized_multiplier(19306, once.multiplier, once.shift), 90);
  for (const double real : {0.4999, 0.3, 0.0046875, 0.001, 1.01 / 2048}) {
    const kernels::QuantizedMultiplier q = quantize_multiplier_rounding_once(real);
    EXPECT_EQ(q.shift, 0) << real;
    const int32_t limit = static_cast<int32_t>(256 / real);
    for (int32_t x = -limit; x <= limit; x += 1 + limit / 50000) {
      const double exact = x * real;
      const int32_t result = kernels::multiply_by_quantized_multiplier(x, q.multiplier, q.shift);
      EXPECT_LE(std::abs(result - exact), 0.5 + 1.0 / 4096)
          << real << " * " << x;
    }
  }
}

// Ratios of 1/2 or more round once already, and below 2^-11 TFLite's second rounding is as
// fine as the first: TFLite's form.
TEST(QuantizeMultiplierRoundingOnce, KeepsTfliteFormOutsideItsRange) {
  for (const double real : {0.5, 0.75, 3.5, 0.99 / 2048, 1e-6, 0.0}) {
    const kernels::QuantizedMultiplier once = quantize_multiplier_rounding_once(real);
    EXPECT_EQ(once.multiplier, kernels::quantize_multiplier(real).multiplier) << real;
    EXPECT_EQ(once.shift, kernels::quantize_multiplier(real).shift) << real;
  }
}

// Every operator of the list has a complete definition, its own TFLite code, and the program
// kind of the same name at the same position.
// ONNX's quantized Sigmoid, element by element: x = (q + 3) * 0.1 in float32, sigmoid, divided
// by 1/200 and rounded half to even, minus 100, saturated to int8.
TEST(OnnxTable, IsOnnxsFloatPathForEveryInput) {
  ir::Graph g;
  g.tensors.resize(2);
  g.tensors[0].type = g.tensors[1].type = ir::DataType::kInt8;
  g.tensors[0].shape = g.tensors[1].shape = {1, 4};
  g.tensors[0].quantization = {{0.1f}, {-3}, 0};
  g.tensors[1].quantization = {{1.0f / 200}, {-100}, 0};
  g.operators.push_back({ir::OpType::kLogistic, {0}, {1}, {}});
  emit::ConstantPool pool;
  LowerContext ctx(g, 0, pool);
  const schema::Region r = ctx.onnx_table([](double x) { return 1.0 / (1.0 + std::exp(-x)); });
  ASSERT_EQ(r.size(), 256u);
  const auto* table = reinterpret_cast<const int8_t*>(pool.bytes().data() + r.offset());
  for (int q = -128; q < 128; ++q) {
    const float x = static_cast<float>(q + 3) * 0.1f;
    const double y = std::nearbyint(200.0 / (1.0 + std::exp(-static_cast<double>(x)))) - 100;
    EXPECT_EQ(table[static_cast<uint8_t>(q)], static_cast<int8_t>(std::min(127.0, y))) << q;
  }
  // q = -3 is 0: sigmoid 1/2 is 100 steps, the zero point's -100 gives 0; large q saturates.
  EXPECT_EQ(table[static_cast<uint8_t>(-3)], 0);
  EXPECT_EQ(table[127], 100);
}

TEST(OpDefinitions, EveryOperatorIsDefinedOnce) {
  std::set<int32_t> codes;
  std::set<std::string> custom;
  for (size_t t = 0; t < ir::kNumOpTypes; ++t) {
    const auto type = static_cast<ir::OpType>(t);
    const OpDef& def = op_def(type);
    SCOPED_TRACE(std::string(ir::to_string(type)));
    EXPECT_NE(def.read_options, nullptr);
    EXPECT_NE(def.write_options, nullptr);
    EXPECT_NE(def.check, nullptr);
    if (def.custom_code != nullptr) {
      EXPECT_EQ(def.builtin_code, 32);  // CUSTOM
      EXPECT_NE(def.write_custom, nullptr);
      EXPECT_TRUE(custom.insert(def.custom_code).second) << def.custom_code << " twice";
      EXPECT_EQ(op_type_for_custom(def.custom_code), type);
      EXPECT_EQ(std::string(ir::to_string(type)), def.custom_code);
      continue;
    }
    EXPECT_TRUE(codes.insert(def.builtin_code).second) << "code " << def.builtin_code << " twice";
    EXPECT_EQ(op_type_for_builtin(def.builtin_code), type);
  }
  EXPECT_EQ(op_type_for_builtin(32), std::nullopt);  // CUSTOM: by name only
  EXPECT_EQ(op_type_for_custom("SignalFramer"), std::nullopt);
  EXPECT_EQ(op_type_for_builtin(52), std::nullopt);  // BIDIRECTIONAL_SEQUENCE_LSTM
}

TEST(OpDefinitions, ProgramKindsFollowTheList) {
  size_t position = 0;
#define MOTE_EXPECT_KIND(kind, name, definition)                                             \
  EXPECT_EQ(static_cast<size_t>(schema::OpKind::kind), position) << #kind;                  \
  EXPECT_EQ(op_kind(ir::OpType::k##kind), schema::OpKind::kind) << #kind;                   \
  EXPECT_STREQ(schema::EnumNameOpKind(schema::OpKind::kind), #kind);                        \
  ++position;
  MOTE_OPERATORS(MOTE_EXPECT_KIND)
#undef MOTE_EXPECT_KIND
  EXPECT_EQ(position, static_cast<size_t>(schema::OpKind::MAX) + 1);
}

}  // namespace
}  // namespace mote::ops
