// The table of operator definitions (one entry per line of MOTE_OPERATORS) and the helpers the
// definitions share.
#include "compiler/ops/op_def.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/broadcast.h"

namespace mote::ops {

#define MOTE_OP_DECLARE(kind, name, definition) extern const OpDef definition;
MOTE_OPERATORS(MOTE_OP_DECLARE)
#undef MOTE_OP_DECLARE

namespace {

#define MOTE_OP_ENTRY(kind, name, definition) &definition,
constexpr std::array<const OpDef*, ir::kNumOpTypes> kDefinitions = {MOTE_OPERATORS(MOTE_OP_ENTRY)};
#undef MOTE_OP_ENTRY

std::string hw(int32_t h, int32_t w) { return std::to_string(h) + "x" + std::to_string(w); }

}  // namespace

const OpDef& op_def(ir::OpType type) {
  const size_t index = static_cast<size_t>(type);
  if (index >= kDefinitions.size()) throw std::logic_error("op_def: unknown operator type");
  return *kDefinitions[index];
}

std::optional<ir::OpType> op_type_for_builtin(int32_t code) {
  for (size_t i = 0; i < kDefinitions.size(); ++i) {
    if (kDefinitions[i]->builtin_code == code && kDefinitions[i]->custom_code == nullptr) {
      return static_cast<ir::OpType>(i);
    }
  }
  return std::nullopt;
}

std::optional<ir::OpType> op_type_for_custom(std::string_view name) {
  for (size_t i = 0; i < kDefinitions.size(); ++i) {
    const char* custom = kDefinitions[i]->custom_code;
    if (custom != nullptr && name == custom) return static_cast<ir::OpType>(i);
  }
  return std::nullopt;
}

int64_t operator_macs(const ir::Graph& graph, const ir::Operator& op) {
  const OpDef& def = op_def(op.type);
  return def.macs != nullptr ? def.macs(graph, op) : 0;
}

int64_t total_macs(const ir::Graph& graph) {
  int64_t total = 0;
  for (const ir::Operator& op : graph.operators) total += operator_macs(graph, op);
  return total;
}

uint64_t operator_scratch_bytes(const ir::Graph& graph, const ir::Operator& op,
                                kernels::Extension extension) {
  const OpDef& def = op_def(op.type);
  return def.scratch_bytes != nullptr ? def.scratch_bytes(graph, op, extension) : 0;
}

kernels::OverlapRule operator_overlap(const ir::Graph& graph, const ir::Operator& op, size_t input,
                                      kernels::Extension extension) {
  const OpDef& def = op_def(op.type);
  return def.overlap != nullptr ? def.overlap(graph, op, input, extension) : kernels::kNoOverlap;
}

kernels::OverlapRule operator_back_overlap(const ir::Graph& graph, const ir::Operator& op,
                                           size_t input) {
  const OpDef& def = op_def(op.type);
  return def.back_overlap != nullptr ? def.back_overlap(graph, op, input) : kernels::kNoOverlap;
}

uint64_t operator_in_place_scratch(const ir::Graph& graph, const ir::Operator& op) {
  const OpDef& def = op_def(op.type);
  return def.in_place_scratch != nullptr ? def.in_place_scratch(graph, op) : 0;
}

kernels::OverlapRule elementwise_overlap(const ir::Graph& graph, const ir::Operator& op,
                                         size_t input, kernels::Extension) {
  const ir::Tensor& in = graph.tensors[static_cast<size_t>(op.inputs[input])];
  const ir::Tensor& out = graph.tensors[static_cast<size_t>(op.outputs[0])];
  const bool same = in.shape == out.shape && in.type == ir::DataType::kInt8 &&
                    out.type == ir::DataType::kInt8;
  return same ? kernels::kElementwiseOverlap : kernels::kNoOverlap;
}

bool constant_across_rows(const ir::Tensor& t) {
  if (!t.is_constant || t.shape.size() > 4) return false;
  for (size_t i = 0; i + 2 < t.shape.size(); ++i) {
    if (t.shape[i] != 1) return false;
  }
  return true;
}

std::optional<RowReach> elementwise_rows(const ir::Graph& graph, const ir::Operator& op,
                                         size_t input) {
  const ir::Tensor& out = graph.tensors[static_cast<size_t>(op.outputs[0])];
  if (input >= op.inputs.size() || out.type != ir::DataType::kInt8 || out.shape.size() != 4 ||
      out.shape[0] != 1) {
    return std::nullopt;
  }
  for (size_t k = 0; k < op.inputs.size(); ++k) {
    if (op.inputs[k] == ir::kNoTensor) return std::nullopt;
    const ir::Tensor& in = graph.tensors[static_cast<size_t>(op.inputs[k])];
    const bool rows = !in.is_constant && in.shape == out.shape;
    if (!rows && (k == input || !constant_across_rows(in))) return std::nullopt;
  }
  return RowReach{};
}

const char* operator_kernel_variant(const ir::Graph& graph, const ir::Operator& op,
                                    kernels::Extension extension) {
  const OpDef& def = op_def(op.type);
  return def.kernel_variant != nullptr ? def.kernel_variant(graph, op, extension)
                                       : kernels::to_string(kernels::Variant::kPortable);
}

// --- inspect ------------------------------------------------------------------------------------

void Description::activation(ir::Activation a) {
  add("activation " + std::string(to_string(a)));
  json["activation"] = std::string(to_string(a));
}

void Description::window(const char* what, int32_t h, int32_t w, int32_t stride_h,
                         int32_t stride_w, ir::Padding padding) {
  add(std::string(what) + " " + hw(h, w) + " stride " + hw(stride_h, stride_w) + " padding " +
      std::string(to_string(padding)));
  json[what] = {h, w};
  json["stride"] = {stride_h, stride_w};
  json["padding"] = std::string(to_string(padding));
}

void Description::folded(const ir::FoldedPad& pad) {
  if (pad.empty()) return;
  add("with a PAD folded in (top " + std::to_string(pad.top) + " bottom " +
      std::to_string(pad.bottom) + " left " + std::to_string(pad.left) + " right " +
      std::to_string(pad.right) + ")");
  json["folded_pad"] = {pad.top, pad.bottom, pad.left, pad.right};
}

void describe_activation(const ir::Graph&, const ir::Operator& op, Description& d) {
  d.activation(std::get<ir::ElementwiseOptions>(op.options).activation);
}

// --- validation ---------------------------------------------------------------------------------

void Checker::expect_broadcast_output() const {
  const Tensor& a = in(0);
  const Tensor& b = in(1);
  kernels::BroadcastShape shape{};
  if (!kernels::prepare_broadcast_shape(a.shape.data(), static_cast<int32_t>(a.shape.size()),
                                        b.shape.data(), static_cast<int32_t>(b.shape.size()),
                                        &shape)) {
    fail("input shapes " + shape_string(a.shape) + " and " + shape_string(b.shape) +
         " do not broadcast");
  }
  expect_output_shape(std::vector<int32_t>(shape.output, shape.output + shape.rank));
}

void Checker::expect_binary_elementwise(bool constants, DataType type) {
  arity(2, 2);
  if (constants && (in(0).is_constant != in(1).is_constant)) {
    const size_t k = in(0).is_constant ? 0 : 1;
    expect_type(k, type);
    expect_per_tensor(k);
    if (type == DataType::kInt16) expect_symmetric16(k);
    data_input(1 - k, type);
  } else {
    data_input(0, type);
    data_input(1, type);
  }
  data_output(type);
  expect_broadcast_output();
}

void Checker::expect_unary_elementwise(DataType type) {
  arity(1, 1);
  const Tensor& input = data_input(0, type);
  data_output(type);
  expect_output_shape(input.shape);
}

// --- TFLite options -----------------------------------------------------------------------------

ir::Activation TfliteOptions::activation(int8_t value) const {
  switch (value) {
    case 0: return ir::Activation::kNone;
    case 1: return ir::Activation::kRelu;
    case 2: return ir::Activation::kReluN1To1;
    case 3: return ir::Activation::kRelu6;
    case 4: fail("fused activation TANH not supported");
    case 5: fail("fused activation SIGN_BIT not supported");
    default: fail("fused activation " + std::to_string(value) + " is not valid");
  }
}

flexbuffers::Map TfliteOptions::custom_map() const {
  const auto* bytes = op_.custom_options();
  if (bytes == nullptr || bytes->size() == 0) fail("custom options missing");
  if (op_.custom_options_format() != 0) {
    fail("custom options format " + std::to_string(op_.custom_options_format()) +
         " is not FlexBuffers");
  }
  if (!flexbuffers::VerifyBuffer(bytes->data(), bytes->size())) {
    fail("custom options are not a valid FlexBuffer");
  }
  const flexbuffers::Reference root = flexbuffers::GetRoot(bytes->data(), bytes->size());
  if (!root.IsMap()) fail("custom options are not a FlexBuffers map");
  return root.AsMap();
}

int64_t TfliteOptions::custom_int(const flexbuffers::Map& map, const char* key, int64_t lo,
                                  int64_t hi) const {
  const flexbuffers::Reference r = map[key];
  if (r.IsNull()) fail(std::string("option ") + key + " missing");
  if (!r.IsInt() && !r.IsUInt() && !r.IsBool()) {
    fail(std::string("option ") + key + " is not an integer");
  }
  // TFLM reads every option as int64 (FlexbufferWrapper::ElementAsInt64) and narrows it.
  const int64_t v = r.IsUInt() && r.AsUInt64() > static_cast<uint64_t>(INT64_MAX)
                        ? INT64_MAX
                        : r.AsInt64();
  if (v < lo || v > hi) {
    fail(std::string("option ") + key + " = " + std::to_string(v) + " out of range [" +
         std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return v;
}

float TfliteOptions::custom_float(const flexbuffers::Map& map, const char* key) const {
  const flexbuffers::Reference r = map[key];
  if (r.IsNull()) fail(std::string("option ") + key + " missing");
  if (!r.IsNumeric()) fail(std::string("option ") + key + " is not a number");
  const double v = r.AsDouble();
  if (!std::isfinite(v)) fail(std::string("option ") + key + " is not finite");
  return static_cast<float>(v);
}

ir::Padding TfliteOptions::padding(int8_t value) const {
  switch (value) {
    case 0: return ir::Padding::kSame;
    case 1: return ir::Padding::kValid;
    default: fail("padding " + std::to_string(value) + " is not valid");
  }
}

std::string TfliteOptions::name(tfl::BuiltinOptions type) {
  const char* name = tfl::EnumNameBuiltinOptions(type);
  if (name != nullptr && *name != '\0') return name;
  return "options type " + std::to_string(static_cast<int>(type));
}

int8_t activation_code(ir::Activation a) {
  switch (a) {
    case ir::Activation::kNone: return 0;
    case ir::Activation::kRelu: return 1;
    case ir::Activation::kReluN1To1: return 2;
    case ir::Activation::kRelu6: return 3;
  }
  return 0;
}

// --- lowering -----------------------------------------------------------------------------------

std::vector<int32_t> int_values(const ir::Tensor& t) {
  std::vector<int32_t> values(static_cast<size_t>(t.num_elements()));
  for (size_t i = 0; i < values.size(); ++i) {
    if (t.type == ir::DataType::kInt64) {
      int64_t v;
      std::memcpy(&v, t.data.data() + 8 * i, 8);
      values[i] = static_cast<int32_t>(v);
    } else {
      std::memcpy(&values[i], t.data.data() + 4 * i, 4);
    }
  }
  return values;
}

kernels::FusedActivation fused(ir::Activation activation) {
  switch (activation) {
    case ir::Activation::kNone: return kernels::FusedActivation::kNone;
    case ir::Activation::kRelu: return kernels::FusedActivation::kRelu;
    case ir::Activation::kReluN1To1: return kernels::FusedActivation::kReluN1To1;
    case ir::Activation::kRelu6: return kernels::FusedActivation::kRelu6;
  }
  return kernels::FusedActivation::kNone;
}

kernels::QuantizedMultiplier quantize_multiplier_rounding_once(double real_multiplier) {
  const kernels::QuantizedMultiplier q = kernels::quantize_multiplier(real_multiplier);
  if (q.multiplier <= 0 || q.shift >= 0 || q.shift < 1 - kRoundOnceMinExponent) return q;
  // real < 1/2: real * 2^31 < 2^30 fits.
  return {static_cast<int32_t>(std::llround(std::ldexp(real_multiplier, 31))), 0};
}

kernels::ActivationRange LowerContext::activation_range(ir::Activation activation) const {
  if (out().type == ir::DataType::kInt16) {
    return kernels::activation_range_int16(fused(activation), scale_of(out()),
                                           zero_point_of(out()));
  }
  return kernels::activation_range_int8(fused(activation), scale_of(out()), zero_point_of(out()));
}

schema::Region LowerContext::onnx_table(const std::function<double(double)>& f) {
  const float in_scale = scale_of(in(0));
  const int32_t in_zero = zero_point_of(in(0));
  const float out_scale = scale_of(out());
  const int32_t out_zero = zero_point_of(out());
  std::vector<int8_t> table(256);
  for (int32_t i = 0; i < 256; ++i) {
    const int32_t q = static_cast<int8_t>(static_cast<uint8_t>(i));
    const float real = static_cast<float>(q - in_zero) * in_scale;  // DequantizeLinear
    // The float operator's float32 result, divided in float32 as QuantizeLinear divides: a
    // quotient that float32 rounds onto a half (0.05f / 0.02f is 2.5) rounds to even.
    const float value = static_cast<float>(f(real));
    const double y = std::nearbyint(value / out_scale) + out_zero;
    // Where f is undefined (NaN: Log or Sqrt of a negative), the lowest value.
    table[static_cast<size_t>(i)] =
        std::isnan(y) ? int8_t{-128} : static_cast<int8_t>(std::clamp(y, -128.0, 127.0));
  }
  return constants_.add_array(table);
}

void LowerContext::channel_requant(int32_t channels, schema::Region* multipliers,
                                   schema::Region* shifts, size_t input, size_t weights) {
  const float input_scale = scale_of(in(input));
  const float output_scale = scale_of(out());
  const auto& weight_scales = in(weights).quantization.scale;
  std::vector<int32_t> m(static_cast<size_t>(channels)), s(static_cast<size_t>(channels));
  for (int32_t c = 0; c < channels; ++c) {
    const float w =
        weight_scales.size() > 1 ? weight_scales[static_cast<size_t>(c)] : weight_scales[0];
    const auto q = multiplier(weights_ratio(input_scale, w, output_scale));
    m[static_cast<size_t>(c)] = q.multiplier;
    s[static_cast<size_t>(c)] = q.shift;
  }
  *multipliers = constants_.add_array(m);
  *shifts = constants_.add_array(s);
}

}  // namespace mote::ops
