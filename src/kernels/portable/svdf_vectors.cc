// Reference-vector runner for "svdf": TFLM's integer SVDF run over the set's time steps from its
// initial state; the output of the last step is compared. int16 weights_time and state
// (arm_svdf_state_s16_s8's sets) and int8 ones (arm_svdf_s8's) both run.
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/testing/vector_runner.h"
#include "mote/kernels/svdf.h"

namespace mote::kernels {
namespace {

template <typename T>
std::vector<int64_t> run_steps(const nlohmann::json& set, const SvdfParams& p) {
  const nlohmann::json& t = set.at("tensors");
  const auto input = testing::int8_tensor(set, "input_sequence");
  const auto wf = testing::int8_tensor(set, "weights_feature");
  const auto wt = t.at("weights_time").get<std::vector<T>>();
  auto state = t.at("state").get<std::vector<T>>();
  std::vector<int32_t> bias;
  if (!t.at("bias").is_null()) bias = t.at("bias").get<std::vector<int32_t>>();
  const size_t step_inputs = static_cast<size_t>(p.batches) * static_cast<size_t>(p.input_size);
  if (step_inputs == 0 || input.size() % step_inputs != 0) {
    throw std::runtime_error("input_sequence is not whole time steps");
  }
  const int32_t units = p.filters / p.rank;
  std::vector<int8_t> output(static_cast<size_t>(p.batches) * static_cast<size_t>(units));
  std::vector<int32_t> scratch(svdf_scratch_bytes(p.batches, p.filters, p.rank) / 4);
  for (size_t step = 0; step < input.size() / step_inputs; ++step) {
    svdf(p, input.data() + step * step_inputs, wf.data(), wt.data(),
         bias.empty() ? nullptr : bias.data(), state.data(), output.data(), scratch.data());
  }
  return testing::widened(output);
}

std::vector<int64_t> RunSvdf(const nlohmann::json& set) {
  const nlohmann::json& params = set.at("params");
  SvdfParams p{};
  testing::read_params(set, {{"input_batches", &p.batches},
                             {"input_size", &p.input_size},
                             {"feature_batches", &p.filters},
                             {"time_batches", &p.memory},
                             {"rank", &p.rank},
                             {"input_offset", &p.input_zero_point},  // the zero point itself
                             {"output_offset", &p.output_zero_point},
                             {"multiplier_in", &p.feature_multiplier},
                             {"shift_1", &p.feature_shift},
                             {"multiplier_out", &p.time_multiplier},
                             {"shift_2", &p.time_shift}});
  p.state_zero_point = 0;  // the sets' state is symmetric
  const bool int16 = set.at("dtypes").at("weights_time") == "int16";
  // The kernel clamps the state to its type's range and the output to int8's, as TFLite does.
  const int32_t state_min = params.at("in_activation_min").get<int32_t>();
  const int32_t state_max = params.at("in_activation_max").get<int32_t>();
  if (state_min != (int16 ? -32768 : -128) || state_max != (int16 ? 32767 : 127) ||
      params.at("out_activation_min").get<int32_t>() != -128 ||
      params.at("out_activation_max").get<int32_t>() != 127) {
    throw std::runtime_error("svdf set with a clamp other than its types' ranges");
  }
  return int16 ? run_steps<int16_t>(set, p) : run_steps<int8_t>(set, p);
}

const testing::RegisterVectorRunner kSvdf("svdf", RunSvdf);

}  // namespace
}  // namespace mote::kernels
