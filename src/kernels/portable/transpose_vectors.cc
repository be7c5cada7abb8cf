// Reference-vector runner for "transpose" (both the raw and the simplified parameters).
#include <stdexcept>
#include <vector>

#include "kernels/testing/vector_runner.h"
#include "mote/kernels/transpose.h"

namespace mote::kernels {
namespace {

std::vector<int64_t> RunTranspose(const nlohmann::json& set) {
  const nlohmann::json& p = set.at("params");
  const int32_t rank = p.at("perm_size").get<int32_t>();
  const auto in_dim = p.at("in_dim").get<std::vector<int32_t>>();
  const auto perm = p.at("perm").get<std::vector<int32_t>>();
  TransposeParams raw{};
  raw.rank = rank;
  for (int32_t i = 0; i < rank; ++i) {
    raw.input_dims[i] = in_dim.at(static_cast<size_t>(i));
    raw.perm[i] = perm.at(static_cast<size_t>(i));
  }
  const auto input = testing::int8_tensor(set, "input");
  std::vector<int8_t> output(input.size());
  transpose(raw, input.data(), output.data());
  // The simplified form prepare_transpose() emits must agree with the raw one.
  const TransposeParams simplified = prepare_transpose(rank, raw.input_dims, raw.perm);
  std::vector<int8_t> output2(input.size());
  transpose(simplified, input.data(), output2.data());
  if (output2 != output) throw std::runtime_error("prepare_transpose changed the result");
  return testing::widened(output);
}

const testing::RegisterVectorRunner kTranspose("transpose", RunTranspose);

}  // namespace
}  // namespace mote::kernels
