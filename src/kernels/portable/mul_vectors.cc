// Reference-vector runner for "mul" (same-shape inputs).
#include <vector>

#include "kernels/testing/vector_runner.h"
#include "mote/kernels/mul.h"

namespace mote::kernels {
namespace {

std::vector<int64_t> RunMul(const nlohmann::json& set) {
  MulParams p{};
  testing::read_params(set, {{"input1_offset", &p.input1_offset},
                             {"input2_offset", &p.input2_offset},
                             {"output_offset", &p.output_offset},
                             {"output_mult", &p.output_multiplier},
                             {"output_shift", &p.output_shift},
                             {"out_activation_min", &p.act_min},
                             {"out_activation_max", &p.act_max}});
  const int32_t size = set.at("params").at("dst_size").get<int32_t>();
  std::vector<int8_t> output(static_cast<size_t>(size));
  mul(p, elementwise_shape(size), testing::int8_tensor(set, "input1").data(),
      testing::int8_tensor(set, "input2").data(), output.data());
  return testing::widened(output);
}

const testing::RegisterVectorRunner kMul("mul", RunMul);

}  // namespace
}  // namespace mote::kernels
