// Reference-vector runners for the 16x8 sets of the operators without kernel variants
// (avgpool_s16, maxpool_s16, add_s16, mul_s16, softmax_s16), on the host. The 16x8 and int4 sets
// of conv, depthwise_conv and fully_connected run as kernel calls, through each build's variant
// (vector_calls/kernel_call_vectors.cc).

#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/testing/vector_runner.h"
#include "mote/kernels/add.h"
#include "mote/kernels/mul.h"
#include "mote/kernels/pooling.h"
#include "mote/kernels/softmax.h"

namespace mote::kernels {
namespace {

using nlohmann::json;

int32_t param(const json& set, const char* key) { return set.at("params").at(key).get<int32_t>(); }

template <typename T>
std::vector<T> tensor(const json& set, const char* name) {
  const json& t = set.at("tensors");
  if (!t.contains(name) || t[name].is_null()) return {};
  return t[name].get<std::vector<T>>();
}

size_t expected_count(const json& set) { return set.at("tensors").at("expected_output").size(); }

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
  for (const char* op : {"avgpool_s16", "maxpool_s16"}) runners[op] = RunPool;
  for (const char* op : {"add_s16", "mul_s16"}) runners[op] = RunElementwise;
  runners["softmax_s16"] = RunSoftmax16;
  return true;
}();

}  // namespace
}  // namespace mote::kernels
