#pragma once
// A float32 graph input whose only reader is a QUANTIZE to int8 or int16 is held quantized: the
// QUANTIZE's output becomes the graph input and the QUANTIZE leaves the graph, so the arena holds
// a quarter (int16: half) of the input's bytes, and the first operators may stream from it. The
// caller writes floats through Executor::write_input, which quantizes them with the QUANTIZE's
// own kernel and output quantization: the bytes the QUANTIZE would have made, so the results are
// the model's. Left as written: an input that is a graph output too, or has another reader; a
// QUANTIZE whose output is a graph output or input, or is quantized per channel.

#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"

namespace mote::passes {

struct QuantizedInputs {
  // The graph with those inputs held quantized (graph.float_inputs marks them); tensor indices
  // unchanged (the float input is left unread, which the memory problem and the program leave out).
  ir::Graph graph;
  // Per operator of `graph`: its index in the graph given.
  std::vector<int32_t> model_index;
  int32_t quantized = 0;  // inputs held quantized
};

QuantizedInputs quantize_float_inputs(const ir::Graph& graph);

}  // namespace mote::passes
