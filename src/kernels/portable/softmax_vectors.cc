// Reference-vector runner for "softmax" (int8 output, or int16 when expected_output is int16).
#include <vector>

#include "kernels/testing/vector_runner.h"
#include "mote/kernels/softmax.h"

namespace mote::kernels {
namespace {

template <typename Output>
std::vector<int64_t> softmax_of(const SoftmaxParams& params, const std::vector<int8_t>& input) {
  std::vector<Output> output(static_cast<size_t>(params.rows) * params.row_size);
  softmax(params, input.data(), output.data());
  return testing::widened(output);
}

std::vector<int64_t> RunSoftmax(const nlohmann::json& set) {
  SoftmaxParams p{};
  testing::read_params(set, {{"num_rows", &p.rows},
                             {"row_size", &p.row_size},
                             {"input_mult", &p.input_multiplier},
                             {"input_left_shift", &p.input_left_shift},
                             {"diff_min", &p.diff_min}});
  const std::vector<int8_t> input = testing::int8_tensor(set, "input");
  return set.at("dtypes").at("expected_output").get<std::string>() == "int16"
             ? softmax_of<int16_t>(p, input)
             : softmax_of<int8_t>(p, input);
}

const testing::RegisterVectorRunner kSoftmax("softmax", RunSoftmax);

}  // namespace
}  // namespace mote::kernels
