// Reference-vector runner for "fully_connected" sets (per-tensor, per-channel, weight zero point).

#include "mote/kernels/fully_connected.h"

#include "conv_vectors_util.h"
#include "kernels/testing/vector_runner.h"

namespace mote::kernels::testing {
namespace {

std::vector<int64_t> RunFullyConnectedSet(const nlohmann::json& set) {
  FullyConnectedParams p{};
  p.batches = Param(set, {"input_batches"});
  p.input_depth = Param(set, {"accumulation_depth"});
  p.output_depth = Param(set, {"out_ch"});
  p.input_offset = Param(set, {"input_offset"});
  p.filter_offset = Param(set, {"filter_offset"}, 0);
  p.output_offset = Param(set, {"output_offset"});
  p.act_min = ActMin(set);
  p.act_max = ActMax(set);
  const nlohmann::json& params = set.at("params");
  p.per_channel = params.contains("per_channel_quant") && params["per_channel_quant"].get<bool>();
  std::vector<int32_t> multiplier = Tensor<int32_t>(set, "output_mult");
  std::vector<int32_t> shift = Tensor<int32_t>(set, "output_shift");
  if (multiplier.empty()) multiplier = {Param(set, {"output_multiplier"})};
  if (shift.empty()) shift = {Param(set, {"output_shift"})};
  EXPECT_EQ(multiplier.size(), p.per_channel ? static_cast<size_t>(p.output_depth) : 1u);
  p.output_multiplier = multiplier.data();
  p.output_shift = shift.data();
  const auto input = Tensor<int8_t>(set, "input");
  const auto filter = Tensor<int8_t>(set, "weights");
  const auto bias = Tensor<int32_t>(set, "bias");
  const int32_t* bias_ptr = bias.empty() ? nullptr : bias.data();
  const size_t out_size = static_cast<size_t>(p.batches) * p.output_depth;

  std::vector<int8_t> out(out_size);
  fully_connected(p, input.data(), filter.data(), bias_ptr, out.data());
  // The same through compile-time kernel sums.
  std::vector<int32_t> sums(p.output_depth);
  fully_connected_kernel_sums(p, filter.data(), bias_ptr, sums.data());
  FullyConnectedParams with_sums = p;
  with_sums.kernel_sums = sums.data();
  std::vector<int8_t> out_sums(out_size);
  fully_connected(with_sums, input.data(), filter.data(), nullptr, out_sums.data());
  EXPECT_EQ(out_sums, out) << "kernel sums change the result";
  return Widen(out);
}

const RegisterVectorRunner kRegister("fully_connected", RunFullyConnectedSet);

}  // namespace
}  // namespace mote::kernels::testing
