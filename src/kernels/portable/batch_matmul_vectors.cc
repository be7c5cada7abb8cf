// Reference-vector runner for "batch_matmul" (TFLite BATCH_MATMUL int8, per tensor): the stored
// lhs and rhs with their adj_x / adj_y flags, batch dimensions broadcast.
#include <vector>

#include "kernels/testing/vector_runner.h"
#include "mote/kernels/batch_matmul.h"

namespace mote::kernels {
namespace {

std::vector<int64_t> RunBatchMatMul(const nlohmann::json& set) {
  const nlohmann::json& p = set.at("params");
  const nlohmann::json& d = set.at("derived");
  const auto lhs_dims = d.at("lhs_shape").get<std::vector<int32_t>>();
  const auto rhs_dims = d.at("rhs_shape").get<std::vector<int32_t>>();
  BatchMatMulParams params{};
  int32_t out_dims[kMaxBatchMatMulRank], out_rank = 0;
  if (!prepare_batch_matmul_shape(lhs_dims.data(), static_cast<int32_t>(lhs_dims.size()),
                                  rhs_dims.data(), static_cast<int32_t>(rhs_dims.size()),
                                  p.at("adj_x").get<int32_t>() != 0,
                                  p.at("adj_y").get<int32_t>() != 0, &params.shape, out_dims,
                                  &out_rank)) {
    return {};  // differs from expected_output in size: the test fails
  }
  testing::read_params(set, {{"lhs_offset", &params.lhs_offset},
                             {"rhs_offset", &params.rhs_offset},
                             {"output_offset", &params.output_offset},
                             {"output_multiplier", &params.output_multiplier},
                             {"output_shift", &params.output_shift},
                             {"activation_min", &params.act_min},
                             {"activation_max", &params.act_max}});
  size_t count = 1;
  for (int32_t i = 0; i < out_rank; ++i) count *= static_cast<size_t>(out_dims[i]);
  const auto lhs = testing::int8_tensor(set, "lhs");
  const auto rhs = testing::int8_tensor(set, "rhs");
  std::vector<int8_t> output(count);
  batch_matmul(params, lhs.data(), rhs.data(), output.data());
  return testing::widened(output);
}

const testing::RegisterVectorRunner kBatchMatMul("batch_matmul", RunBatchMatMul);

}  // namespace
}  // namespace mote::kernels
