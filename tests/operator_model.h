#pragma once
// A model of the operators that came with the operator registry (TRANSPOSE_CONV, LEAKY_RELU,
// SUB with broadcasting and a fused ReLU, MAXIMUM, MINIMUM with broadcasting, between an
// AVERAGE_POOL_2D; then RELU, RELU6, TANH, PRELU, SQUARED_DIFFERENCE, RSQRT and LOG_SOFTMAX;
// then SUM, REDUCE_MAX, ARG_MAX, ARG_MIN and RESIZE_BILINEAR; the data-movement operators; then
// BATCH_MATMUL with constant weights and with an activation rhs; UNIDIRECTIONAL_SEQUENCE_LSTM
// over SUM's result), built with the builder, and its output computed by slow references written
// here, in activation_reference.cc and lstm_reference.cc from TFLite's definitions, independent
// of Mote's kernels. Used by operators_test.cc (host) and write_operator_model.cc (the
// firmware's reference).

#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"

namespace mote::testing {

ir::Graph operator_model();
// The model's input: Mote's default input (xorshift32, state 1).
std::vector<uint8_t> operator_model_input(const ir::Graph& graph);
// What TFLite's reference kernels compute for `input`: every graph output's bytes, concatenated.
std::vector<uint8_t> operator_model_reference(const ir::Graph& graph,
                                              const std::vector<uint8_t>& input);

}  // namespace mote::testing
