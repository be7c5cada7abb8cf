// MoteTableLookup: one of ONNX's elementwise functions (HardSigmoid, Elu, Exp, Erf, ...) between
// int8 tensors, as the 256-entry table of ONNX's definition: each input value dequantized, the
// function in floating point, the result quantized to the output (LowerContext::onnx_table).
// Only the ONNX reader makes it; a .tflite holds it as a custom operator.
#include <cmath>
#include <limits>
#include <numbers>

#include "compiler/ops/checker.h"
#include "compiler/ops/element_functions.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "flatbuffers/flexbuffers.h"

namespace mote::ops {

using ir::ElementFunction;

namespace {

// ONNX's defaults (Selu's gamma is its beta).
constexpr ElementFunctionInfo kFunctions[] = {
    {ElementFunction::kHardSigmoid, "HardSigmoid", "alpha", 0.2f, "beta", 0.5f},
    {ElementFunction::kElu, "Elu", "alpha", 1.0f, nullptr, 0},
    {ElementFunction::kSelu, "Selu", "alpha", 1.67326319217681884765625f, "gamma",
     1.05070102214813232421875f},
    {ElementFunction::kCelu, "Celu", "alpha", 1.0f, nullptr, 0},
    {ElementFunction::kThresholdedRelu, "ThresholdedRelu", "alpha", 1.0f, nullptr, 0},
    {ElementFunction::kSoftplus, "Softplus", nullptr, 0, nullptr, 0},
    {ElementFunction::kSoftsign, "Softsign", nullptr, 0, nullptr, 0},
    {ElementFunction::kMish, "Mish", nullptr, 0, nullptr, 0},
    {ElementFunction::kGelu, "Gelu", nullptr, 0, nullptr, 0},
    {ElementFunction::kGeluTanh, "Gelu", nullptr, 0, nullptr, 0},
    {ElementFunction::kExp, "Exp", nullptr, 0, nullptr, 0},
    {ElementFunction::kLog, "Log", nullptr, 0, nullptr, 0},
    {ElementFunction::kSqrt, "Sqrt", nullptr, 0, nullptr, 0},
    {ElementFunction::kReciprocal, "Reciprocal", nullptr, 0, nullptr, 0},
    {ElementFunction::kAbs, "Abs", nullptr, 0, nullptr, 0},
    {ElementFunction::kNeg, "Neg", nullptr, 0, nullptr, 0},
    {ElementFunction::kErf, "Erf", nullptr, 0, nullptr, 0},
    {ElementFunction::kSin, "Sin", nullptr, 0, nullptr, 0},
    {ElementFunction::kCos, "Cos", nullptr, 0, nullptr, 0},
    {ElementFunction::kFloor, "Floor", nullptr, 0, nullptr, 0},
    {ElementFunction::kCeil, "Ceil", nullptr, 0, nullptr, 0},
    {ElementFunction::kRound, "Round", nullptr, 0, nullptr, 0},
    {ElementFunction::kSign, "Sign", nullptr, 0, nullptr, 0},
    // Bounds beyond float's range stand for none (alpha and beta must be finite).
    {ElementFunction::kClip, "Clip", "min", -std::numeric_limits<float>::max(), "max",
     std::numeric_limits<float>::max()},
    {ElementFunction::kAddConstant, "x + c", nullptr, 0, nullptr, 0},
    {ElementFunction::kMulConstant, "x * c", nullptr, 0, nullptr, 0},
    {ElementFunction::kDivByConstant, "x / c", nullptr, 0, nullptr, 0},
    {ElementFunction::kConstantDivBy, "c / x", nullptr, 0, nullptr, 0},
    {ElementFunction::kConstantSub, "c - x", nullptr, 0, nullptr, 0},
    {ElementFunction::kPowConstant, "x ^ c", nullptr, 0, nullptr, 0},
};
static_assert(std::size(kFunctions) == ir::kNumElementFunctions);

// Arithmetic with a constant: its formula stands for the function, with c = alpha.
bool has_constant(ElementFunction f) { return f >= ElementFunction::kAddConstant; }

std::string function_text(const ir::TableLookupOptions& o) {
  const ElementFunctionInfo& f = element_function(o.function);
  std::string text = f.onnx_name;
  if (has_constant(o.function)) return text + " with c " + num(o.alpha);
  if (o.function == ElementFunction::kClip) {  // a bound at float's limit is none
    constexpr float kMax = std::numeric_limits<float>::max();
    if (o.alpha > -kMax) text += " min " + num(o.alpha);
    if (o.beta < kMax) text += " max " + num(o.beta);
    return text;
  }
  if (o.function == ElementFunction::kGeluTanh) text += " (tanh approximation)";
  if (f.alpha_attribute != nullptr) text += std::string(" ") + f.alpha_attribute + " " + num(o.alpha);
  if (f.beta_attribute != nullptr) text += std::string(" ") + f.beta_attribute + " " + num(o.beta);
  return text;
}

ir::Options read(const TfliteOptions& t) {
  const flexbuffers::Map m = t.custom_map();
  ir::TableLookupOptions o;
  o.function = static_cast<ElementFunction>(t.custom_int(m, "function", 0, ir::kNumElementFunctions - 1));
  o.alpha = t.custom_float(m, "alpha");
  o.beta = t.custom_float(m, "beta");
  return o;
}

std::vector<uint8_t> write_custom(const ir::Operator& op) {
  const auto& o = std::get<ir::TableLookupOptions>(op.options);
  flexbuffers::Builder b;
  b.Map([&] {
    b.Int("function", static_cast<int64_t>(o.function));
    b.Float("alpha", o.alpha);
    b.Float("beta", o.beta);
  });
  b.Finish();
  return b.GetBuffer();
}

void write_nothing(const ir::Operator&, tfl::BuiltinOptionsUnion&) {}

void check(Checker& c) {
  const auto& o = c.options<ir::TableLookupOptions>();
  if (static_cast<int>(o.function) >= ir::kNumElementFunctions) c.fail("function out of range");
  if (!std::isfinite(o.alpha) || !std::isfinite(o.beta)) c.fail("alpha or beta is not finite");
  if (o.function == ElementFunction::kCelu && o.alpha == 0) c.fail("Celu's alpha 0 is not valid (it divides by alpha)");
  c.expect_unary_elementwise();
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<ir::TableLookupOptions>(ctx.op().options);
  schema::TableLookupOptionsT t;
  t.table = std::make_unique<schema::Region>(ctx.onnx_table([&](double x) { return evaluate(o, x); }));
  out.options.Set(std::move(t));
}

void describe(const ir::Graph&, const ir::Operator& op, Description& d) {
  const auto& o = std::get<ir::TableLookupOptions>(op.options);
  const ElementFunctionInfo& f = element_function(o.function);
  d.add(function_text(o) + " as a 256-entry table");
  d.json["function"] = f.onnx_name;
  if (has_constant(o.function)) d.json["c"] = o.alpha;
  if (o.function == ElementFunction::kGeluTanh) d.json["approximate"] = "tanh";
  if (f.alpha_attribute != nullptr) d.json[f.alpha_attribute] = o.alpha;
  if (f.beta_attribute != nullptr) d.json[f.beta_attribute] = o.beta;
}

}  // namespace

const ElementFunctionInfo* element_function(std::string_view onnx_name) {
  for (const ElementFunctionInfo& f : kFunctions) {
    if (!has_constant(f.function) && onnx_name == f.onnx_name) return &f;
  }
  return nullptr;
}

const ElementFunctionInfo& element_function(ElementFunction function) {
  return kFunctions[static_cast<size_t>(function)];
}

double evaluate(const ir::TableLookupOptions& o, double x) {
  const double a = o.alpha;
  switch (o.function) {
    case ElementFunction::kHardSigmoid: return std::fmax(0.0, std::fmin(1.0, a * x + o.beta));
    case ElementFunction::kElu: return x < 0 ? a * std::expm1(x) : x;
    case ElementFunction::kSelu: return o.beta * (x > 0 ? x : a * std::expm1(x));
    case ElementFunction::kCelu: return std::fmax(0.0, x) + std::fmin(0.0, a * std::expm1(x / a));
    case ElementFunction::kThresholdedRelu: return x > a ? x : 0.0;
    case ElementFunction::kSoftplus: return std::log1p(std::exp(x));
    case ElementFunction::kSoftsign: return x / (1 + std::fabs(x));
    case ElementFunction::kMish: return x * std::tanh(std::log1p(std::exp(x)));
    case ElementFunction::kGelu: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case ElementFunction::kGeluTanh: {
      const double k = std::sqrt(2 / std::numbers::pi);
      return 0.5 * x * (1 + std::tanh(k * (x + 0.044715 * x * x * x)));
    }
    case ElementFunction::kExp: return std::exp(x);
    case ElementFunction::kLog: return std::log(x);
    case ElementFunction::kSqrt: return std::sqrt(x);
    case ElementFunction::kReciprocal: return 1 / x;
    case ElementFunction::kAbs: return std::fabs(x);
    case ElementFunction::kNeg: return -x;
    case ElementFunction::kErf: return std::erf(x);
    case ElementFunction::kSin: return std::sin(x);
    case ElementFunction::kCos: return std::cos(x);
    case ElementFunction::kFloor: return std::floor(x);
    case ElementFunction::kCeil: return std::ceil(x);
    case ElementFunction::kRound: return std::nearbyint(x);  // half to even
    case ElementFunction::kSign: return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
    case ElementFunction::kClip: return std::fmin(std::fmax(x, a), o.beta);
    // In float32, as ONNX's float operator computes them on the dequantized float32 value.
    case ElementFunction::kAddConstant: return static_cast<float>(x) + o.alpha;
    case ElementFunction::kMulConstant: return static_cast<float>(x) * o.alpha;
    case ElementFunction::kDivByConstant: return static_cast<float>(x) / o.alpha;
    case ElementFunction::kConstantDivBy: return o.alpha / static_cast<float>(x);
    case ElementFunction::kConstantSub: return o.alpha - static_cast<float>(x);
    case ElementFunction::kPowConstant: return std::pow(static_cast<float>(x), o.alpha);
  }
  return NAN;
}

extern const OpDef table_lookup{
    .builtin_code = builtin(tfl::BuiltinOperator::CUSTOM), .custom_code = "MoteTableLookup",
    .write_custom = write_custom, .read_options = read, .write_options = write_nothing,
    .inputs = {1, 1}, .check = check, .lower = lower, .describe = describe};

}  // namespace mote::ops
