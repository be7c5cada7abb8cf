#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "compiler/ops/element_functions.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ir/error.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/validate.h"

namespace mote::ops {
namespace {

using ir::ElementFunction;

// [1, 4] int8 -> int8 through `o`, input scale 0.05 zero point 3, output 1/64 and -10 (unless
// given); lowered.
std::vector<int8_t> lowered_table(const ir::TableLookupOptions& o,
                                  const ir::Quantization& in = {{0.05f}, {3}, 0},
                                  const ir::Quantization& out_q = {{1.0f / 64}, {-10}, 0}) {
  ir::Graph g;
  g.tensors.resize(2);
  g.tensors[0].type = g.tensors[1].type = ir::DataType::kInt8;
  g.tensors[0].shape = g.tensors[1].shape = {1, 4};
  g.tensors[0].quantization = in;
  g.tensors[1].quantization = out_q;
  g.operators.push_back({ir::OpType::kTableLookup, {0}, {1}, o});
  emit::ConstantPool pool;
  LowerContext ctx(g, 0, pool);
  schema::OperatorT out;
  op_def(ir::OpType::kTableLookup).lower(ctx, out);
  const auto* options = out.options.AsTableLookupOptions();
  EXPECT_NE(options, nullptr);
  if (options == nullptr || options->table == nullptr) return {};
  EXPECT_EQ(options->table->size(), 256u);
  const auto* bytes = reinterpret_cast<const int8_t*>(pool.bytes().data() + options->table->offset());
  return {bytes, bytes + 256};
}

// Each entry is ONNX's DequantizeLinear, the function written out here (its result in float32),
// QuantizeLinear (dividing in float32).
int8_t expected(double (*f)(double), int q) {
  const double x = static_cast<double>(static_cast<float>(q - 3) * 0.05f);
  const double y = std::nearbyint(static_cast<float>(f(x)) / (1.0f / 64)) - 10;
  if (std::isnan(y)) return -128;
  return static_cast<int8_t>(std::fmax(-128, std::fmin(127, y)));
}

TEST(TableLookup, LowersEachFunctionToItsQuantizedTable) {
  struct Case {
    ir::TableLookupOptions options;
    double (*f)(double);
  };
  const Case cases[] = {
      {{ElementFunction::kHardSigmoid, 0.2f, 0.5f},
       [](double x) { return std::fmax(0.0, std::fmin(1.0, static_cast<double>(0.2f) * x + 0.5)); }},
      {{ElementFunction::kElu, 0.5f, 0}, [](double x) { return x < 0 ? 0.5 * (std::exp(x) - 1) : x; }},
      {{ElementFunction::kExp, 0, 0}, [](double x) { return std::exp(x); }},
      {{ElementFunction::kErf, 0, 0}, [](double x) { return std::erf(x); }},
      {{ElementFunction::kGelu, 0, 0},
       [](double x) { return x * 0.5 * (1 + std::erf(x * 0.7071067811865476)); }},
      {{ElementFunction::kSqrt, 0, 0}, [](double x) { return std::sqrt(x); }},  // NaN below 0
      {{ElementFunction::kSoftplus, 0, 0}, [](double x) { return std::log(1 + std::exp(x)); }},
      {{ElementFunction::kNeg, 0, 0}, [](double x) { return -x; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(element_function(c.options.function).onnx_name);
    const std::vector<int8_t> table = lowered_table(c.options);
    ASSERT_EQ(table.size(), 256u);
    int distinct = 0;
    for (int q = -128; q < 128; ++q) {
      const int8_t want = expected(c.f, q);
      // Only a value within float32 noise of a tie may round the other way.
      if (table[static_cast<uint8_t>(q)] != want) {
        const double x = static_cast<double>(static_cast<float>(q - 3) * 0.05f);
        const double steps = c.f(x) * 64;
        EXPECT_NEAR(std::fabs(steps - std::trunc(steps)), 0.5, 1e-5) << q;
      }
      if (q > -128 && table[static_cast<uint8_t>(q)] != table[static_cast<uint8_t>(q - 1)]) ++distinct;
    }
    EXPECT_GT(distinct, 10);  // not a constant table
  }
  // Sqrt of a negative is NaN: the lowest value; of 0 (q = 3), the zero point.
  const std::vector<int8_t> root = lowered_table({ElementFunction::kSqrt, 0, 0});
  EXPECT_EQ(root[static_cast<uint8_t>(-100)], -128);
  EXPECT_EQ(root[3], -10);
}

// QuantizeLinear divides in float32: 0.05f / 0.02f is 2.5 there (2.5000000372... in double),
// which rounds to even, 2. A Relu from scale 0.025 to 0.02 meets that tie at input 2.
TEST(TableLookup, DividesByTheOutputScaleInFloat32) {
  const float max = std::numeric_limits<float>::max();
  const std::vector<int8_t> relu =
      lowered_table({ElementFunction::kClip, 0, max}, {{0.025f}, {0}, 0}, {{0.02f}, {0}, 0});
  ASSERT_EQ(relu.size(), 256u);
  EXPECT_EQ(relu[2], 2);    // 0.05 / 0.02: the tie, to even
  EXPECT_EQ(relu[6], 8);    // 0.15f / 0.02f is 7.5000005: up
  EXPECT_EQ(relu[4], 5);    // exactly 5
  EXPECT_EQ(relu[static_cast<uint8_t>(-3)], 0);  // clamped to 0
}

// What the table cannot be computed from is refused by the operator's check, whichever reader
// made it: a non-finite attribute, Celu's alpha 0 (it divides by alpha).
TEST(TableLookup, RefusesAttributesItCannotTabulate) {
  auto why = [](const ir::TableLookupOptions& o) -> std::string {
    ir::Graph g;
    g.tensors.resize(2);
    g.tensors[0].type = g.tensors[1].type = ir::DataType::kInt8;
    g.tensors[0].shape = g.tensors[1].shape = {1, 4};
    g.tensors[0].quantization = g.tensors[1].quantization = {{0.05f}, {3}, 0};
    g.operators.push_back({ir::OpType::kTableLookup, {0}, {1}, o});
    g.inputs = {0};
    g.outputs = {1};
    try {
      validate(g);
    } catch (const InputError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(why({ElementFunction::kCelu, 1.0f, 0}), "accepted");
  EXPECT_THAT(why({ElementFunction::kCelu, 0.0f, 0}), ::testing::HasSubstr("Celu's alpha 0"));
  EXPECT_THAT(why({ElementFunction::kElu, NAN, 0}), ::testing::HasSubstr("not finite"));
}

TEST(TableLookup, NamesEveryFunctionByItsOnnxOperator) {
  for (int k = 0; k < ir::kNumElementFunctions; ++k) {
    const auto function = static_cast<ElementFunction>(k);
    const ElementFunctionInfo& info = element_function(function);
    EXPECT_EQ(info.function, function);
    // Looking the name up finds this function (Gelu's tanh form shares Gelu's name); arithmetic
    // with a constant is named by its formula, which no ONNX operator is.
    const ElementFunctionInfo* found = element_function(info.onnx_name);
    if (function >= ElementFunction::kAddConstant) {
      EXPECT_EQ(found, nullptr) << info.onnx_name;
      continue;
    }
    ASSERT_NE(found, nullptr) << info.onnx_name;
    EXPECT_EQ(found->function,
              function == ElementFunction::kGeluTanh ? ElementFunction::kGelu : function);
  }
  EXPECT_EQ(element_function("Tan"), nullptr);
  EXPECT_EQ(element_function("Relu"), nullptr);  // RELU, not a table
}

TEST(TableLookup, EvaluatesOnnxsDefinitions) {
  auto at = [](ElementFunction f, double x, float alpha = 0, float beta = 0) {
    return evaluate({f, alpha, beta}, x);
  };
  EXPECT_DOUBLE_EQ(at(ElementFunction::kHardSigmoid, 1.0, 0.2f, 0.5f), 0.2f * 1.0 + 0.5);
  EXPECT_DOUBLE_EQ(at(ElementFunction::kHardSigmoid, 9.0, 0.2f, 0.5f), 1.0);
  EXPECT_DOUBLE_EQ(at(ElementFunction::kSelu, -1.0, 2.0f, 3.0f), 3.0 * 2.0 * (std::exp(-1.0) - 1));
  EXPECT_DOUBLE_EQ(at(ElementFunction::kCelu, -1.0, 2.0f), 2.0 * (std::exp(-0.5) - 1));
  EXPECT_DOUBLE_EQ(at(ElementFunction::kThresholdedRelu, 1.0, 1.0f), 0.0);
  EXPECT_DOUBLE_EQ(at(ElementFunction::kThresholdedRelu, 1.5, 1.0f), 1.5);
  EXPECT_DOUBLE_EQ(at(ElementFunction::kSoftsign, -3.0), -0.75);
  EXPECT_NEAR(at(ElementFunction::kMish, 1.0), 1.0 * std::tanh(std::log(1 + std::exp(1.0))), 1e-15);
  EXPECT_NEAR(at(ElementFunction::kGeluTanh, 1.0), 0.8411919906082768, 1e-12);
  EXPECT_NEAR(at(ElementFunction::kGelu, 1.0), 0.8413447460685429, 1e-12);
  EXPECT_DOUBLE_EQ(at(ElementFunction::kReciprocal, 4.0), 0.25);
  EXPECT_DOUBLE_EQ(at(ElementFunction::kRound, 2.5), 2.0);  // half to even
  EXPECT_DOUBLE_EQ(at(ElementFunction::kRound, -1.5), -2.0);
  EXPECT_DOUBLE_EQ(at(ElementFunction::kFloor, -1.5), -2.0);
  EXPECT_DOUBLE_EQ(at(ElementFunction::kCeil, -1.5), -1.0);
  EXPECT_DOUBLE_EQ(at(ElementFunction::kSign, -0.1), -1.0);
  EXPECT_DOUBLE_EQ(at(ElementFunction::kAbs, -0.1), 0.1);
  EXPECT_TRUE(std::isnan(at(ElementFunction::kLog, -1.0)));
}

// Arithmetic with a constant c (alpha) is float32's, as ONNX's float operators compute it on
// the dequantized float32 value: 0.1f + 0.2f is not the double 0.1f + 0.2f.
TEST(TableLookup, ArithmeticWithAConstantIsFloat32s) {
  auto at = [](ElementFunction f, float x, float c) { return evaluate({f, c, 0}, x); };
  EXPECT_EQ(at(ElementFunction::kAddConstant, 0.1f, 0.2f), static_cast<double>(0.1f + 0.2f));
  EXPECT_NE(at(ElementFunction::kAddConstant, 0.1f, 0.2f), double{0.1f} + double{0.2f});
  EXPECT_EQ(at(ElementFunction::kMulConstant, 0.1f, 3.0f), static_cast<double>(0.1f * 3.0f));
  EXPECT_EQ(at(ElementFunction::kDivByConstant, 1.0f, 6.0f), static_cast<double>(1.0f / 6.0f));
  EXPECT_EQ(at(ElementFunction::kConstantDivBy, 4.0f, 2.0f), 0.5);
  EXPECT_EQ(at(ElementFunction::kConstantSub, 0.25f, 2.0f), 1.75);
  EXPECT_EQ(at(ElementFunction::kPowConstant, -3.0f, 2.0f), 9.0);
  EXPECT_TRUE(std::isinf(at(ElementFunction::kDivByConstant, 1.0f, 0.0f)));  // saturates in the table
  // The formula names it; no ONNX operator name finds it (Add and Mul are other operators).
  EXPECT_STREQ(element_function(ElementFunction::kConstantSub).onnx_name, "c - x");
  EXPECT_EQ(element_function("Add"), nullptr);
  EXPECT_EQ(element_function("Pow"), nullptr);
}

}  // namespace
}  // namespace mote::ops
