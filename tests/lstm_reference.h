#pragma once
// A slow reference of UNIDIRECTIONAL_SEQUENCE_LSTM on a graph's operator, written from the
// definition of TensorFlow Lite Micro's integer LSTM (8x8->16: lstm_eval's gates, TFLite's int16
// Logistic and Tanh on its sigmoid grid, the parameters its Prepare computes from the scales),
// independent of Mote's kernel. Host test code only (stateful_test.cc, operator_model.cc).

#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"

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

// One invocation of the LSTM `op` on `input` (int8 values in the input tensor's layout): the
// output in the output tensor's layout; `state` carries the sequence on.
std::vector<int8_t> lstm_reference(const ir::Graph& graph, const ir::Operator& op,
                                   const std::vector<int8_t>& input, LstmState& state);

// The gate functions: TFLite's int16 Logistic of a Q3.12 input, and its Tanh with TFLM's input
// shift (0 for the cell gate's Q3.12; 15 + cell scale power - 3 for the cell), both Q0.15.
int64_t lstm_logistic_reference(int64_t x);
int64_t lstm_tanh_reference(int64_t x, int shift);

}  // namespace mote::testing
