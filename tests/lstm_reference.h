#pragma once
// A slow reference of UNIDIRECTIONAL_SEQUENCE_LSTM on a graph's operator, written from the
// definition of TensorFlow Lite Micro's integer LSTM (lstm_eval's gates, TFLite's int16 Logistic
// and Tanh on its sigmoid grid, the parameters its Prepare computes from the scales) in both its
// integer forms: 8x8->16 (int8 activations, int32 biases) and 16x8->16 (int16 activations, int64
// biases: EvalLstm<int16_t, int8_t, int16_t, int64_t>), independent of Mote's kernel. Host test
// code only (stateful_test.cc, operator_model.cc).

#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"
#include "tests/activation_reference.h"

namespace mote::testing {

// The operator's two variable tensors, in int64: the hidden state [batches, units] and the
// cell state [batches, units].
struct LstmState {
  std::vector<int64_t> hidden;
  std::vector<int64_t> cell;
};
// What TFLite's variable tensors hold before the first invocation: real 0 (the hidden state's
// zero point, a zero cell).
LstmState lstm_initial_state(const ir::Graph& graph, const ir::Operator& op);

// One invocation of the LSTM `op` on `input` (the input tensor's values, int8 or int16, in its
// layout): the output's values in the output tensor's layout; `state` carries the sequence on.
std::vector<int64_t> lstm_reference(const ir::Graph& graph, const ir::Operator& op,
                                    const std::vector<int64_t>& input, LstmState& state);
// The same for an int8 LSTM.
std::vector<int8_t> lstm_reference(const ir::Graph& graph, const ir::Operator& op,
                                   const std::vector<int8_t>& input, LstmState& state);

// The gate functions: TFLite's int16 Logistic of a Q3.12 input, and its Tanh with TFLM's input
// shift (0 for the cell gate's Q3.12; 15 + cell scale power - 3 for the cell), both Q0.15.
int64_t lstm_logistic_reference(int64_t x);
int64_t lstm_tanh_reference(int64_t x, int shift);
// TFLite's MultiplyByQuantizedMultiplier for an int64 sum (its 16x8 fully connected layers): the
// multiplier rounded to 16 bits, one rounding shift by 15 - shift.
int64_t multiply64_reference(int64_t x, Multiplier m);

}  // namespace mote::testing
