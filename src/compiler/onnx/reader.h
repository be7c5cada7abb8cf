#pragma once
// Reads a quantized ONNX model (.onnx, QDQ or QOperator form) into Mote's graph IR.

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/graph.h"

namespace mote::onnx {

// What the user decides about an ONNX model that the file leaves open.
struct ImportOptions {
  // ONNX's 4-D activations are NCHW; Mote's kernels run NHWC. The graph's 4-D inputs and outputs
  // keep the model's NCHW (a transpose at each end, or a free reshape where one dimension is 1)
  // unless these say NHWC, which the caller then feeds and reads.
  bool input_nhwc = false;
  bool output_nhwc = false;
  // Fixed shapes for inputs with symbolic dimensions (--input-shape NAME=1,3,96,96; an empty
  // name means the model's only input).
  std::vector<std::pair<std::string, std::vector<int32_t>>> input_shapes;
};

// Whether the bytes start like an ONNX ModelProto (field 1, ir_version, as a varint): the cheap
// test `mote` uses for a file whose name does not end in .onnx.
bool looks_like_onnx(std::span<const uint8_t> bytes);

// Reads the main graph: QuantizeLinear / DequantizeLinear pairs around float operators (QDQ) and
// the QLinear* / *Integer operators (QOperator) become Mote's int8 operators; weights are
// re-laid for NHWC kernels; uint8 tensors become int8 with the zero point moved by 128 (the same
// real values). The result passes ops::validate. Throws mote::InputError with a one-line reason
// naming the node ("node 12 'conv3' (Conv, opset 13): ...").
ir::Graph read_model(std::span<const uint8_t> bytes, const ImportOptions& options = {});

}  // namespace mote::onnx
