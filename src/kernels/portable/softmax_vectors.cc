// Reference-vector runner for "softmax" (int8 output, or int16 when expected_output is int16).
#include <vector>

#include "kernels/testing/vector_runner.h"
#include "mote/kernels/softmax.h"

namespace mote::kernels {
namespace {

std::vector<int64_t> RunSoftmax(const nlohmann::json& set) {
  const nlohmann::json& p = set.at("params");
  SoftmaxParams params{};
  params.rows = p.at("num_rows").get<int32_t>();
  params.row_size = p.at("row_size").get<int32_t>();
  params.input_multiplier = p.at("input_mult").get<int32_t>();
  params.input_left_shift = p.at("input_left_shift").get<int32_t>();
  params.diff_min = p.at("diff_min").get<int32_t>();
  const auto input = set.at("tensors").at("input").get<std::vector<int8_t>>();
  const size_t size = static_cast<size_t>(params.rows) * params.row_size;
  if (set.at("dtypes").at("expected_output").get<std::string>() == "int16") {
    std::vector<int16_t> output(size);
    softmax(params, input.data(), output.data());
    return {output.begin(), output.end()};
  }
  std::vector<int8_t> output(size);
  softmax(params, input.data(), output.data());
  return {output.begin(), output.end()};
}

const testing::RegisterVectorRunner kSoftmax("softmax", RunSoftmax);

}  // namespace
}  // namespace mote::kernels
