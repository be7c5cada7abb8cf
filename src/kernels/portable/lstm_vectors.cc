// Reference-vector runner for "lstm" (TFLM's integer UNIDIRECTIONAL_SEQUENCE_LSTM, 8x8->16): the
// sets' weights per gate, the sequence from the real-zero state, every step's hidden state.
#include <string>
#include <vector>

#include "kernels/testing/vector_runner.h"
#include "mote/kernels/lstm.h"

namespace mote::kernels {
namespace {

std::vector<int64_t> RunLstm(const nlohmann::json& set) {
  const nlohmann::json& p = set.at("params");
  const nlohmann::json& tensors = set.at("tensors");
  LstmParams params{};
  testing::read_params(set, {{"batch_size", &params.batch_size},
                             {"time_steps", &params.time_steps},
                             {"input_size", &params.input_size},
                             {"hidden_size", &params.hidden_size},
                             {"input_zero_point", &params.input_offset},
                             {"output_zero_point", &params.hidden_zero_point},
                             {"forget_to_cell_multiplier", &params.forget_to_cell_multiplier},
                             {"forget_to_cell_shift", &params.forget_to_cell_shift},
                             {"input_to_cell_multiplier", &params.input_to_cell_multiplier},
                             {"input_to_cell_shift", &params.input_to_cell_shift},
                             {"cell_clip", &params.cell_clip},
                             {"cell_scale_power", &params.cell_scale_power},
                             {"output_multiplier", &params.output_multiplier},
                             {"output_shift", &params.output_shift}});
  params.time_major = p.at("time_major").get<bool>();
  const char* const kGates[kLstmGates] = {"input", "forget", "cell", "output"};
  std::vector<int8_t> input_weights[kLstmGates], hidden_weights[kLstmGates];
  std::vector<int32_t> bias[kLstmGates];
  for (int32_t g = 0; g < kLstmGates; ++g) {
    const std::string gate = kGates[g];
    input_weights[g] = testing::int8_tensor(set, (gate + "_gate_input_weights").c_str());
    hidden_weights[g] = testing::int8_tensor(set, (gate + "_gate_hidden_weights").c_str());
    const nlohmann::json& b = tensors.at(gate + "_gate_bias");
    if (!b.is_null()) bias[g] = b.get<std::vector<int32_t>>();
    LstmGateParams& gp = params.gates[g];
    gp.input_weights = input_weights[g].data();
    gp.hidden_weights = hidden_weights[g].data();
    gp.bias = bias[g].empty() ? nullptr : bias[g].data();
    testing::read_params(set, {{(gate + "_gate_input_multiplier").c_str(), &gp.input_multiplier},
                               {(gate + "_gate_input_shift").c_str(), &gp.input_shift},
                               {(gate + "_gate_hidden_multiplier").c_str(), &gp.hidden_multiplier},
                               {(gate + "_gate_hidden_shift").c_str(), &gp.hidden_shift}});
  }
  if (!lstm_params_ok(params)) return {};  // differs from expected_output in size: fails
  const auto input = testing::int8_tensor(set, "input");
  const size_t states = static_cast<size_t>(params.batch_size) * params.hidden_size;
  std::vector<int8_t> hidden(states);
  std::vector<int16_t> cell(states);
  std::vector<int16_t> scratch(lstm_scratch_bytes(params) / sizeof(int16_t));
  lstm_reset_state(params, hidden.data(), cell.data());
  std::vector<int8_t> output(static_cast<size_t>(params.time_steps) * states);
  lstm(params, input.data(), hidden.data(), cell.data(), output.data(),
       Scratch{reinterpret_cast<int8_t*>(scratch.data()), scratch.size() * sizeof(int16_t)});
  return testing::widened(output);
}

const testing::RegisterVectorRunner kLstm("lstm", RunLstm);

}  // namespace
}  // namespace mote::kernels
