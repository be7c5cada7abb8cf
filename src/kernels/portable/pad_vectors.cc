// Reference-vector runner for "pad" (4-D NHWC, constant value).
#include <vector>

#include "kernels/testing/vector_runner.h"
#include "mote/kernels/pad.h"

namespace mote::kernels {
namespace {

std::vector<int64_t> RunPad(const nlohmann::json& set) {
  const nlohmann::json& p = set.at("params");
  const char* const kAxes[4] = {"n", "h", "w", "c"};
  int32_t dims[4], before[4], after[4];
  size_t output_size = 1;
  for (int i = 0; i < 4; ++i) {
    dims[i] = p.at(std::string("input_") + kAxes[i]).get<int32_t>();
    before[i] = p.at(std::string("pre_pad_") + kAxes[i]).get<int32_t>();
    after[i] = p.at(std::string("post_pad_") + kAxes[i]).get<int32_t>();
    output_size *= static_cast<size_t>(dims[i] + before[i] + after[i]);
  }
  const PadParams params =
      prepare_pad(4, dims, before, after, static_cast<int8_t>(p.at("pad_value").get<int32_t>()));
  const auto input = testing::int8_tensor(set, "input");
  std::vector<int8_t> output(output_size);
  pad(params, input.data(), output.data());
  return testing::widened(output);
}

const testing::RegisterVectorRunner kPad("pad", RunPad);

}  // namespace
}  // namespace mote::kernels
