// Reference-vector runners for "maximum" and "minimum" (NHWC broadcasting of raw int8 values).
#include <vector>

#include "kernels/testing/vector_runner.h"
#include "mote/kernels/maximum_minimum.h"

namespace mote::kernels {
namespace {

std::vector<int64_t> RunMaxMin(const nlohmann::json& set, bool is_max) {
  const nlohmann::json& p = set.at("params");
  int32_t dims1[4], dims2[4];
  const char* const kAxes[4] = {"batch", "height", "width", "channel"};
  for (int i = 0; i < 4; ++i) {
    dims1[i] = p.at(std::string(kAxes[i]) + "_1").get<int32_t>();
    dims2[i] = p.at(std::string(kAxes[i]) + "_2").get<int32_t>();
  }
  BroadcastShape shape{};
  if (!prepare_broadcast_shape(dims1, 4, dims2, 4, &shape)) return {};
  const auto input1 = set.at("tensors").at("input1").get<std::vector<int8_t>>();
  const auto input2 = set.at("tensors").at("input2").get<std::vector<int8_t>>();
  std::vector<int8_t> output(broadcast_output_size(shape));
  if (is_max) {
    maximum(shape, input1.data(), input2.data(), output.data());
  } else {
    minimum(shape, input1.data(), input2.data(), output.data());
  }
  return testing::widened(output);
}

const testing::RegisterVectorRunner kMaximum(
    "maximum", [](const nlohmann::json& set) { return RunMaxMin(set, true); });
const testing::RegisterVectorRunner kMinimum(
    "minimum", [](const nlohmann::json& set) { return RunMaxMin(set, false); });

}  // namespace
}  // namespace mote::kernels
