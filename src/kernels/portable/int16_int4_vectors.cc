// Reference-vector runners for the 16x8 sets (conv_s16, depthwise_conv_s16, fully_connected_s16,
// avgpool_s16, maxpool_s16, add_s16, mul_s16, softmax_s16) and the int4-weight sets (conv_int4,
// depthwise_conv_int4, fully_connected_int4): the portable direct kernels, on the host.

#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/testing/vector_runner.h"
#include "mote/kernels/add.h"
#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "mote/kernels/fully_connected.h"
#include "mote/kernels/mul.h"
#include "mote/kernels/pooling.h"
#include "mote/kernels/softmax.h"

namespace mote::kernels {
namespace {

using nlohmann::json;

int32_t param(const json& set, const char* key) { return set.at("params").at(key).get<int32_t>(); }
int32_t param_or(const json& set, const char* key, int32_t fallback) {
  const json& p = set.at("params");
  return p.contains(key) && !p[key].is_null() ? p[key].get<int32_t>() : fallback;
}

template <typename T>
std::vector<T> tensor(const json& set, const char* name) {
  const json& t = set.at("tensors");
  if (!t.contains(name) || t[name].is_null()) return {};
  return t[name].get<std::vector<T>>();
}
template <typename T>
const T* or_null(const std::vector<T>& v) { return v.empty() ? nullptr : v.data(); }

std::vector<uint8_t> packed(const json& set) {
  const std::vector<int8_t> bytes = tensor<int8_t>(set, "weights");
  return {bytes.begin(), bytes.end()};
}

size_t expected_count(const json& set) { return set.at("tensors").at("expected_output").size(); }

template <typename Shape>
void read_window(const json& set, Shape& s) {
  s.batches = param(set, "input_batches");
  s.input_h = param(set, "input_h");
  s.input_w = param(set, "input_w");
  s.input_c = param(set, "in_ch");
  s.filter_h = param(set, "filter_y");
  s.filter_w = param(set, "filter_x");
  s.output_h = param(set, "output_h");
  s.output_w = param(set, "output_w");
  s.output_c = param(set, "out_ch");
  s.stride_h = param(set, "stride_y");
  s.stride_w = param(set, "stride_x");
  s.pad_h = param(set, "pad_y");
  s.pad_w = param(set, "pad_x");
  s.dilation_h = param_or(set, "dilation_y", 1);
  s.dilation_w = param_or(set, "dilation_x", 1);
}

template <typename Params>
void read_quantization(const json& set, Params& p, const std::vector<int32_t>& multiplier,
                       const std::vector<int32_t>& shift) {
  p.input_offset = param(set, "input_offset");
  p.output_offset = param(set, "output_offset");
  p.act_min = param_or(set, "out_activation_min", param_or(set, "activation_min", -128));
  p.act_max = param_or(set, "out_activation_max", param_or(set, "activation_max", 127));
  p.output_multiplier = multiplier.data();
  p.output_shift = shift.data();
}

bool int64_bias(const json& set) { return set.at("dtypes").at("bias").get<std::string>() == "int64"; }

std::vector<int64_t> RunConv(const json& set) {
  ConvParams p{};
  read_window(set, p.shape);
  p.shape.filter_c = param_or(set, "filter_ch", p.shape.input_c);
  const auto multiplier = tensor<int32_t>(set, "output_mult");
  const auto shift = tensor<int32_t>(set, "output_shift");
  read_quantization(set, p, multiplier, shift);
  if (set.at("op") == "conv_int4") {
    std::vector<int8_t> out(expected_count(set));
    const auto bias = tensor<int32_t>(set, "bias");
    conv2d_int4(p, tensor<int8_t>(set, "input").data(), packed(set).data(), or_null(bias), out.data());
    return testing::widened(out);
  }
  std::vector<int16_t> out(expected_count(set));
  const auto input = tensor<int16_t>(set, "input");
  const auto filter = tensor<int8_t>(set, "weights");
  if (int64_bias(set)) {
    const auto bias = tensor<int64_t>(set, "bias");
    conv2d_16x8(p, input.data(), filter.data(), or_null(bias), out.data());
  } else {
    const auto bias = tensor<int32_t>(set, "bias");
    conv2d_16x8(p, input.data(), filter.data(), or_null(bias), out.data());
  }
  return testing::widened(out);
}

std::vector<int64_t> RunDepthwiseConv(const json& set) {
  DepthwiseConvParams p{};
  read_window(set, p.shape);
  const auto multiplier = tensor<int32_t>(set, "output_mult");
  const auto shift = tensor<int32_t>(set, "output_shift");
  read_quantization(set, p, multiplier, shift);
  if (set.at("op") == "depthwise_conv_int4") {
    std::vector<int8_t> out(expected_count(set));
    const auto bias = tensor<int32_t>(set, "bias");
    depthwise_conv2d_int4(p, tensor<int8_t>(set, "input").data(), packed(set).data(),
                          or_null(bias), out.data());
    return testing::widened(out);
  }
  std::vector<int16_t> out(expected_count(set));
  const auto bias = tensor<int64_t>(set, "bias");
  depthwise_conv2d_16x8(p, tensor<int16_t>(set, "input").data(), tensor<int8_t>(set, "weights").data(),
                        or_null(bias), out.data());
  return testing::widened(out);
}

std::vector<int64_t> RunFullyConnected(const json& set) {
  FullyConnectedParams p{};
  p.batches = param(set, "input_batches");
  p.input_depth = param(set, "accumulation_depth");
  p.output_depth = param(set, "out_ch");
  p.filter_offset = param_or(set, "filter_offset", 0);
  const std::vector<int32_t> multiplier = {param(set, "output_multiplier")};
  const std::vector<int32_t> shift = {param(set, "output_shift")};
  read_quantization(set, p, multiplier, shift);
  p.per_channel = false;
  if (set.at("op") == "fully_connected_int4") {
    std::vector<int8_t> out(expected_count(set));
    const auto bias = tensor<int32_t>(set, "bias");
    fully_connected_int4(p, tensor<int8_t>(set, "input").data(), packed(set).data(), or_null(bias),
                         out.data());
    return testing::widened(out);
  }
  std::vector<int16_t> out(expected_count(set));
  const auto bias = tensor<int64_t>(set, "bias");
  fully_connected_16x8(p, tensor<int16_t>(set, "input").data(), tensor<int8_t>(set, "weights").data(),
                       or_null(bias), out.data());
  return testing::widened(out);
}

PoolParams pool_params(const json& set) {
  PoolParams p{};
  p.batches = param(set, "batch_size");
  p.input_h = param(set, "input_h");
  p.input_w = param(set, "input_w");
  p.channels = param(set, "input_c");
  p.output_h = param(set, "output_h");
  p.output_w = param(set, "output_w");
  p.filter_h = param(set, "filter_h");
  p.filter_w = param(set, "filter_w");
  p.stride_h = param(set, "stride_h");
  p.stride_w = param(set, "stride_w");
  p.pad_h = param(set, "padding_h");
  p.pad_w = param(set, "padding_w");
  p.act_min = param(set, "activation_min");
  p.act_max = param(set, "activation_max");
  return p;
}

std::vector<int64_t> RunPool(const json& set) {
  std::vector<int16_t> out(expected_count(set));
  const auto input = tensor<int16_t>(set, "input");
  if (set.at("op") == "avgpool_s16") {
    average_pool(pool_params(set), input.data(), out.data());
  } else {
    max_pool(pool_params(set), input.data(), out.data());
  }
  return testing::widened(out);
}

std::vector<int64_t> RunElementwise(const json& set) {
  std::vector<int16_t> out(expected_count(set));
  const int32_t count = param(set, "dst_size");
  const auto input1 = tensor<int16_t>(set, "input1");
  const auto input2 = tensor<int16_t>(set, "input2");
  if (set.at("op") == "add_s16") {
    AddParams p{};
    testing::read_params(set, {{"input1_offset", &p.input1_offset}, {"input2_offset", &p.input2_offset},
                               {"output_offset", &p.output_offset}, {"left_shift", &p.left_shift},
                               {"input1_mult", &p.input1_multiplier}, {"input1_shift", &p.input1_shift},
                               {"input2_mult", &p.input2_multiplier}, {"input2_shift", &p.input2_shift},
                               {"output_mult", &p.output_multiplier}, {"output_shift", &p.output_shift},
                               {"out_activation_min", &p.act_min}, {"out_activation_max", &p.act_max}});
    add(p, count, input1.data(), input2.data(), out.data());
  } else {
    MulParams p{};
    testing::read_params(set, {{"input1_offset", &p.input1_offset}, {"input2_offset", &p.input2_offset},
                               {"output_offset", &p.output_offset}, {"output_mult", &p.output_multiplier},
                               {"output_shift", &p.output_shift}, {"out_activation_min", &p.act_min},
                               {"out_activation_max", &p.act_max}});
    mul(p, count, input1.data(), input2.data(), out.data());
  }
  return testing::widened(out);
}

std::vector<int64_t> RunSoftmax16(const json& set) {
  Softmax16Params p{};
  testing::read_params(set, {{"num_rows", &p.rows}, {"row_size", &p.row_size},
                             {"input_mult", &p.input_multiplier},
                             {"input_left_shift", &p.input_left_shift}});
  const auto exp_lut = tensor<int16_t>(set, "exp_lut");
  const auto reciprocal_lut = tensor<int16_t>(set, "one_by_one_lut");
  if (exp_lut.size() != kSoftmax16LutSize || reciprocal_lut.size() != kSoftmax16LutSize) {
    throw std::runtime_error("softmax_s16 tables are not 513 entries");
  }
  // The compiler's tables are TFLite's, entry for entry.
  std::vector<int16_t> own_exp(kSoftmax16LutSize), own_reciprocal(kSoftmax16LutSize);
  populate_softmax16_tables(own_exp.data(), own_reciprocal.data());
  if (own_exp != exp_lut || own_reciprocal != reciprocal_lut) {
    throw std::runtime_error("populate_softmax16_tables differs from the set's tables");
  }
  p.exp_lut = exp_lut.data();
  p.one_over_one_plus_x_lut = reciprocal_lut.data();
  std::vector<int16_t> out(expected_count(set));
  softmax(p, tensor<int16_t>(set, "input").data(), out.data());
  return testing::widened(out);
}

const bool kRegistered = [] {
  auto& runners = testing::vector_runners();
  for (const char* op : {"conv_s16", "conv_int4"}) runners[op] = RunConv;
  for (const char* op : {"depthwise_conv_s16", "depthwise_conv_int4"}) runners[op] = RunDepthwiseConv;
  for (const char* op : {"fully_connected_s16", "fully_connected_int4"}) runners[op] = RunFullyConnected;
  for (const char* op : {"avgpool_s16", "maxpool_s16"}) runners[op] = RunPool;
  for (const char* op : {"add_s16", "mul_s16"}) runners[op] = RunElementwise;
  runners["softmax_s16"] = RunSoftmax16;
  return true;
}();

}  // namespace
}  // namespace mote::kernels
