// Reference-vector runners for "avgpool" and "maxpool" (shared/vectors/{avg,max}pooling).
#include <vector>

#include "kernels/testing/vector_runner.h"
#include "mote/kernels/pooling.h"

namespace mote::kernels {
namespace {

std::vector<int64_t> RunPool(const nlohmann::json& set, bool average) {
  PoolParams params{};
  testing::read_params(set, {{"batch_size", &params.batches},
                             {"input_h", &params.input_h},
                             {"input_w", &params.input_w},
                             {"input_c", &params.channels},
                             {"output_h", &params.output_h},
                             {"output_w", &params.output_w},
                             {"filter_h", &params.filter_h},
                             {"filter_w", &params.filter_w},
                             {"stride_h", &params.stride_h},
                             {"stride_w", &params.stride_w},
                             {"padding_h", &params.pad_h},
                             {"padding_w", &params.pad_w},
                             {"activation_min", &params.act_min},
                             {"activation_max", &params.act_max}});
  const std::vector<int8_t> input = testing::int8_tensor(set, "input");
  std::vector<int8_t> output(static_cast<size_t>(params.batches) * params.output_h *
                             params.output_w * params.channels);
  if (average) {
    // The portable kernel needs no scratch; hand it the DSP-sized buffer anyway.
    std::vector<int8_t> scratch(static_cast<size_t>(params.channels) * 4);
    average_pool(params, input.data(), output.data(), Scratch{scratch.data(), scratch.size()});
  } else {
    max_pool(params, input.data(), output.data());
  }
  return testing::widened(output);
}

const testing::RegisterVectorRunner kAvgPool(
    "avgpool", [](const nlohmann::json& set) { return RunPool(set, true); });
const testing::RegisterVectorRunner kMaxPool(
    "maxpool", [](const nlohmann::json& set) { return RunPool(set, false); });

}  // namespace
}  // namespace mote::kernels
