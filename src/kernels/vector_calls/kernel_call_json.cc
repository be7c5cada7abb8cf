// Reading reference-vector sets into kernel calls. Parameter names differ between the older and
// newer sets (shared/vectors/README.md), and absent tensors are null.

#include "kernels/vector_calls/kernel_call_json.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/vector_calls/kernel_call_fields.h"

namespace mote::kernels::testing {
namespace {

using nlohmann::json;

// The first of `keys` present in set["params"], else `fallback` (or an error if there is none).
int32_t param(const json& set, std::initializer_list<const char*> keys,
              const int32_t* fallback = nullptr) {
  const json& params = set.at("params");
  for (const char* key : keys) {
    if (params.contains(key) && !params[key].is_null()) return params[key].get<int32_t>();
  }
  if (fallback != nullptr) return *fallback;
  throw std::runtime_error(std::string("vector set lacks param ") + *keys.begin());
}
int32_t param_or(const json& set, std::initializer_list<const char*> keys, int32_t fallback) {
  return param(set, keys, &fallback);
}

template <typename T>
std::vector<T> tensor(const json& set, const char* name) {
  const json& tensors = set.at("tensors");
  if (!tensors.contains(name) || tensors[name].is_null()) return {};
  return tensors[name].get<std::vector<T>>();
}

class Writer {
 public:
  explicit Writer(CallKind kind) {
    words_ = {kCallMagic, static_cast<uint32_t>(kind), 0};
  }
  void operator()(int32_t& v) {
    words_.push_back(static_cast<uint32_t>(v));
    ++words_[2];
  }
  template <typename T>
  void tensor(const std::vector<T>& values) {
    if (!tensors_started_) {
      tensors_at_ = words_.size();
      words_.push_back(0);
      tensors_started_ = true;
    }
    ++words_[tensors_at_];
    words_.push_back(sizeof(T));
    words_.push_back(static_cast<uint32_t>(values.size()));
    if (sizeof(T) == 8 && words_.size() % 2 != 0) words_.push_back(0);  // 8-byte elements: aligned
    const size_t bytes = values.size() * sizeof(T);
    const size_t at = words_.size();
    words_.resize(at + (bytes + 3) / 4, 0);
    if (bytes != 0) std::memcpy(words_.data() + at, values.data(), bytes);
  }
  std::vector<uint32_t> take() { return std::move(words_); }

 private:
  std::vector<uint32_t> words_;
  size_t tensors_at_ = 0;
  bool tensors_started_ = false;
};

int32_t act_min(const json& set) { return param_or(set, {"out_activation_min", "activation_min"}, -128); }
int32_t act_max(const json& set) { return param_or(set, {"out_activation_max", "activation_max"}, 127); }

// The activations' form of a set: int8 (with int8 or, packed, int4 weights) or 16x8.
enum class Form { kInt8, kInt16, kInt4 };

Form form_of(const std::string& op) {
  const auto ends_with = [&](const char* tail) {
    const size_t n = std::strlen(tail);
    return op.size() > n && op.compare(op.size() - n, n, tail) == 0;
  };
  return ends_with("_s16") ? Form::kInt16 : (ends_with("_int4") ? Form::kInt4 : Form::kInt8);
}

// A 16x8 set's bias: int64 (TFLite's) unless its dtype says int32.
void write_bias(const json& set, Form form, Writer& w) {
  const json dtypes = set.value("dtypes", json::object());
  if (form == Form::kInt16 && !(dtypes.contains("bias") && dtypes["bias"] == "int32")) {
    w.tensor(tensor<int64_t>(set, "bias"));
  } else {
    w.tensor(tensor<int32_t>(set, "bias"));
  }
}

// An activation tensor of the form's type.
void write_activations(const json& set, const char* name, Form form, Writer& w) {
  if (form == Form::kInt16) {
    w.tensor(tensor<int16_t>(set, name));
  } else {
    w.tensor(tensor<int8_t>(set, name));
  }
}

// input, filter (int4: its packed bytes, as the sets hold them), bias, per-channel multipliers
// and shifts, expected.
void write_convolution_tensors(const json& set, Writer& w, Form form = Form::kInt8) {
  write_activations(set, "input", form, w);
  w.tensor(tensor<int8_t>(set, "weights"));
  write_bias(set, form, w);
  w.tensor(tensor<int32_t>(set, "output_mult"));
  w.tensor(tensor<int32_t>(set, "output_shift"));
  write_activations(set, "expected_output", form, w);
}

CallKind kind_of(CallKind int8, Form form) {
  const uint32_t k = static_cast<uint32_t>(int8);  // kConv, kDepthwiseConv, kFullyConnected
  if (form == Form::kInt16) return static_cast<CallKind>(k - 1 + static_cast<uint32_t>(CallKind::kConv16x8));
  if (form == Form::kInt4) return static_cast<CallKind>(k - 1 + static_cast<uint32_t>(CallKind::kConvInt4));
  return int8;
}

// The window and quantization fields conv and depthwise sets share (their shapes and parameters
// have these fields alike).
template <typename Params>
void read_window_operator(const json& set, Params& p) {
  auto& s = p.shape;
  s.batches = param(set, {"input_batches"});
  s.input_h = param(set, {"input_h"});
  s.input_w = param(set, {"input_w"});
  s.input_c = param(set, {"in_ch"});
  s.filter_h = param(set, {"filter_y"});
  s.filter_w = param(set, {"filter_x"});
  s.output_h = param(set, {"output_h"});
  s.output_w = param(set, {"output_w"});
  s.output_c = param(set, {"out_ch"});
  s.stride_h = param(set, {"stride_y"});
  s.stride_w = param(set, {"stride_x"});
  s.pad_h = param(set, {"pad_y"});
  s.pad_w = param(set, {"pad_x"});
  s.dilation_h = param_or(set, {"dilation_y"}, 1);
  s.dilation_w = param_or(set, {"dilation_x"}, 1);
  p.input_offset = param(set, {"input_offset"});
  p.output_offset = param(set, {"output_offset"});
  p.act_min = act_min(set);
  p.act_max = act_max(set);
}

std::vector<uint32_t> conv_call(const json& set, Form form) {
  ConvParams p{};
  read_window_operator(set, p);
  p.shape.filter_c = param_or(set, {"filter_ch"}, p.shape.input_c);
  Writer w(kind_of(CallKind::kConv, form));
  conv_fields(p, w);
  write_convolution_tensors(set, w, form);
  return w.take();
}

std::vector<uint32_t> depthwise_conv_call(const json& set, Form form) {
  DepthwiseConvParams p{};
  read_window_operator(set, p);
  const DepthwiseShape& s = p.shape;
  if (s.input_c <= 0 || s.output_c != s.input_c * param_or(set, {"ch_mult"}, s.output_c / s.input_c)) {
    throw std::runtime_error("out_ch is not in_ch * ch_mult");
  }
  Writer w(kind_of(CallKind::kDepthwiseConv, form));
  depthwise_conv_fields(p, w);
  write_convolution_tensors(set, w, form);
  return w.take();
}

std::vector<uint32_t> fully_connected_call(const json& set, Form form) {
  FullyConnectedParams p{};
  p.batches = param(set, {"input_batches"});
  p.input_depth = param(set, {"accumulation_depth"});
  p.output_depth = param(set, {"out_ch"});
  p.input_offset = param(set, {"input_offset"});
  p.filter_offset = param_or(set, {"filter_offset"}, 0);
  p.output_offset = param(set, {"output_offset"});
  p.act_min = act_min(set);
  p.act_max = act_max(set);
  const json& params = set.at("params");
  int32_t per_channel = params.contains("per_channel_quant") && params["per_channel_quant"].get<bool>();
  // Per-tensor sets give one multiplier and shift as params instead of tensors.
  std::vector<int32_t> multiplier = tensor<int32_t>(set, "output_mult");
  std::vector<int32_t> shift = tensor<int32_t>(set, "output_shift");
  if (multiplier.empty()) multiplier = {param(set, {"output_multiplier"})};
  if (shift.empty()) shift = {param(set, {"output_shift"})};
  Writer w(kind_of(CallKind::kFullyConnected, form));
  fully_connected_fields(p, per_channel, w);
  write_activations(set, "input", form, w);
  w.tensor(tensor<int8_t>(set, "weights"));
  write_bias(set, form, w);
  w.tensor(multiplier);
  w.tensor(shift);
  write_activations(set, "expected_output", form, w);
  return w.take();
}

std::vector<uint32_t> pool_call(const json& set, CallKind kind) {
  PoolParams p{};
  p.batches = param(set, {"batch_size"});
  p.input_h = param(set, {"input_h"});
  p.input_w = param(set, {"input_w"});
  p.channels = param(set, {"input_c"});
  p.output_h = param(set, {"output_h"});
  p.output_w = param(set, {"output_w"});
  p.filter_h = param(set, {"filter_h"});
  p.filter_w = param(set, {"filter_w"});
  p.stride_h = param(set, {"stride_h"});
  p.stride_w = param(set, {"stride_w"});
  p.pad_h = param(set, {"padding_h"});
  p.pad_w = param(set, {"padding_w"});
  p.act_min = param(set, {"activation_min"});
  p.act_max = param(set, {"activation_max"});
  Writer w(kind);
  pool_fields(p, w);
  w.tensor(tensor<int8_t>(set, "input"));
  w.tensor(tensor<int8_t>(set, "expected_output"));
  return w.take();
}

void write_elementwise_tensors(const json& set, Writer& w) {
  w.tensor(tensor<int8_t>(set, "input1"));
  w.tensor(tensor<int8_t>(set, "input2"));
  w.tensor(tensor<int8_t>(set, "expected_output"));
}

std::vector<uint32_t> add_call(const json& set) {
  AddParams p{};
  p.input1_offset = param(set, {"input1_offset"});
  p.input2_offset = param(set, {"input2_offset"});
  p.output_offset = param(set, {"output_offset"});
  p.left_shift = param(set, {"left_shift"});
  p.input1_multiplier = param(set, {"input1_mult"});
  p.input1_shift = param(set, {"input1_shift"});
  p.input2_multiplier = param(set, {"input2_mult"});
  p.input2_shift = param(set, {"input2_shift"});
  p.output_multiplier = param(set, {"output_mult"});
  p.output_shift = param(set, {"output_shift"});
  p.act_min = param(set, {"out_activation_min"});
  p.act_max = param(set, {"out_activation_max"});
  int32_t count = param(set, {"dst_size"});
  Writer w(CallKind::kAdd);
  add_fields(p, count, w);
  write_elementwise_tensors(set, w);
  return w.take();
}

std::vector<uint32_t> mul_call(const json& set) {
  MulParams p{};
  p.input1_offset = param(set, {"input1_offset"});
  p.input2_offset = param(set, {"input2_offset"});
  p.output_offset = param(set, {"output_offset"});
  p.output_multiplier = param(set, {"output_mult"});
  p.output_shift = param(set, {"output_shift"});
  p.act_min = param(set, {"out_activation_min"});
  p.act_max = param(set, {"out_activation_max"});
  int32_t count = param(set, {"dst_size"});
  Writer w(CallKind::kMul);
  mul_fields(p, count, w);
  write_elementwise_tensors(set, w);
  return w.take();
}

}  // namespace

std::vector<uint32_t> encode_call(const json& set) {
  const std::string op = set.at("op").get<std::string>();
  const Form form = form_of(op);
  const std::string base = form == Form::kInt16 ? op.substr(0, op.size() - 4)
                           : form == Form::kInt4 ? op.substr(0, op.size() - 5)
                                                 : op;
  if (base == "conv") return conv_call(set, form);
  if (base == "depthwise_conv") return depthwise_conv_call(set, form);
  if (base == "fully_connected") return fully_connected_call(set, form);
  if (op == "avgpool") return pool_call(set, CallKind::kAveragePool);
  if (op == "maxpool") return pool_call(set, CallKind::kMaxPool);
  if (op == "add") return add_call(set);
  if (op == "mul") return mul_call(set);
  throw std::runtime_error("no kernel call for op " + op);
}

}  // namespace mote::kernels::testing
