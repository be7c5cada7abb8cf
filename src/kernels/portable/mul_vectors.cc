// Reference-vector runner for "mul" (same-shape inputs).
#include <vector>

#include "kernels/testing/vector_runner.h"
#include "mote/kernels/mul.h"

namespace mote::kernels {
namespace {

std::vector<int64_t> RunMul(const nlohmann::json& set) {
  const nlohmann::json& p = set.at("params");
  MulParams params{};
  params.input1_offset = p.at("input1_offset").get<int32_t>();
  params.input2_offset = p.at("input2_offset").get<int32_t>();
  params.output_offset = p.at("output_offset").get<int32_t>();
  params.output_multiplier = p.at("output_mult").get<int32_t>();
  params.output_shift = p.at("output_shift").get<int32_t>();
  params.act_min = p.at("out_activation_min").get<int32_t>();
  params.act_max = p.at("out_activation_max").get<int32_t>();
  const auto input1 = set.at("tensors").at("input1").get<std::vector<int8_t>>();
  const auto input2 = set.at("tensors").at("input2").get<std::vector<int8_t>>();
  const int32_t size = p.at("dst_size").get<int32_t>();
  std::vector<int8_t> output(static_cast<size_t>(size));
  mul(params, elementwise_shape(size), input1.data(), input2.data(), output.data());
  return {output.begin(), output.end()};
}

const testing::RegisterVectorRunner kMul("mul", RunMul);

}  // namespace
}  // namespace mote::kernels
