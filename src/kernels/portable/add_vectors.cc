// Reference-vector runner for "add" (same-shape inputs).
#include <vector>

#include "kernels/testing/vector_runner.h"
#include "mote/kernels/add.h"

namespace mote::kernels {
namespace {

std::vector<int64_t> RunAdd(const nlohmann::json& set) {
  const nlohmann::json& p = set.at("params");
  AddParams params{};
  params.input1_offset = p.at("input1_offset").get<int32_t>();
  params.input2_offset = p.at("input2_offset").get<int32_t>();
  params.output_offset = p.at("output_offset").get<int32_t>();
  params.left_shift = p.at("left_shift").get<int32_t>();
  params.input1_multiplier = p.at("input1_mult").get<int32_t>();
  params.input1_shift = p.at("input1_shift").get<int32_t>();
  params.input2_multiplier = p.at("input2_mult").get<int32_t>();
  params.input2_shift = p.at("input2_shift").get<int32_t>();
  params.output_multiplier = p.at("output_mult").get<int32_t>();
  params.output_shift = p.at("output_shift").get<int32_t>();
  params.act_min = p.at("out_activation_min").get<int32_t>();
  params.act_max = p.at("out_activation_max").get<int32_t>();
  const auto input1 = set.at("tensors").at("input1").get<std::vector<int8_t>>();
  const auto input2 = set.at("tensors").at("input2").get<std::vector<int8_t>>();
  const int32_t size = p.at("dst_size").get<int32_t>();
  std::vector<int8_t> output(static_cast<size_t>(size));
  add(params, elementwise_shape(size), input1.data(), input2.data(), output.data());
  return {output.begin(), output.end()};
}

const testing::RegisterVectorRunner kAdd("add", RunAdd);

}  // namespace
}  // namespace mote::kernels
