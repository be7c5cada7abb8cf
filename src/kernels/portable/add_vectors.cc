// Reference-vector runner for "add" (same-shape inputs).
#include <vector>

#include "kernels/testing/vector_runner.h"
#include "mote/kernels/add.h"

namespace mote::kernels {
namespace {

std::vector<int64_t> RunAdd(const nlohmann::json& set) {
  AddParams p{};
  testing::read_params(set, {{"input1_offset", &p.input1_offset},
                             {"input2_offset", &p.input2_offset},
                             {"output_offset", &p.output_offset},
                             {"left_shift", &p.left_shift},
                             {"input1_mult", &p.input1_multiplier},
                             {"input1_shift", &p.input1_shift},
                             {"input2_mult", &p.input2_multiplier},
                             {"input2_shift", &p.input2_shift},
                             {"output_mult", &p.output_multiplier},
                             {"output_shift", &p.output_shift},
                             {"out_activation_min", &p.act_min},
                             {"out_activation_max", &p.act_max}});
  const int32_t size = set.at("params").at("dst_size").get<int32_t>();
  std::vector<int8_t> output(static_cast<size_t>(size));
  add(p, elementwise_shape(size), testing::int8_tensor(set, "input1").data(),
      testing::int8_tensor(set, "input2").data(), output.data());
  return testing::widened(output);
}

const testing::RegisterVectorRunner kAdd("add", RunAdd);

}  // namespace
}  // namespace mote::kernels
