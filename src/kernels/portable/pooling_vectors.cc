// Reference-vector runners for "avgpool" and "maxpool" (shared/vectors/{avg,max}pooling).
#include <vector>

#include "kernels/testing/vector_runner.h"
#include "mote/kernels/pooling.h"

namespace mote::kernels {
namespace {

PoolParams PoolParamsFrom(const nlohmann::json& p) {
  PoolParams params{};
  params.batches = p.at("batch_size").get<int32_t>();
  params.input_h = p.at("input_h").get<int32_t>();
  params.input_w = p.at("input_w").get<int32_t>();
  params.channels = p.at("input_c").get<int32_t>();
  params.output_h = p.at("output_h").get<int32_t>();
  params.output_w = p.at("output_w").get<int32_t>();
  params.filter_h = p.at("filter_h").get<int32_t>();
  params.filter_w = p.at("filter_w").get<int32_t>();
  params.stride_h = p.at("stride_h").get<int32_t>();
  params.stride_w = p.at("stride_w").get<int32_t>();
  params.pad_h = p.at("padding_h").get<int32_t>();
  params.pad_w = p.at("padding_w").get<int32_t>();
  params.act_min = p.at("activation_min").get<int32_t>();
  params.act_max = p.at("activation_max").get<int32_t>();
  return params;
}

std::vector<int64_t> RunPool(const nlohmann::json& set, bool average) {
  const PoolParams params = PoolParamsFrom(set.at("params"));
  const auto input = set.at("tensors").at("input").get<std::vector<int8_t>>();
  std::vector<int8_t> output(static_cast<size_t>(params.batches) * params.output_h *
                             params.output_w * params.channels);
  if (average) {
    // The portable kernel needs no scratch; hand it the DSP-sized buffer anyway.
    std::vector<int8_t> scratch(static_cast<size_t>(params.channels) * 4);
    average_pool(params, input.data(), output.data(), Scratch{scratch.data(), scratch.size()});
  } else {
    max_pool(params, input.data(), output.data());
  }
  return {output.begin(), output.end()};
}

const testing::RegisterVectorRunner kAvgPool(
    "avgpool", [](const nlohmann::json& set) { return RunPool(set, true); });
const testing::RegisterVectorRunner kMaxPool(
    "maxpool", [](const nlohmann::json& set) { return RunPool(set, false); });

}  // namespace
}  // namespace mote::kernels
