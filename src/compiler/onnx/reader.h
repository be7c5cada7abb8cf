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
  // Requantizations round once, as ONNX Runtime's float arithmetic does (ir::Graph::round_once),
  // unless this asks for TFLite's fixed-point rounding (--rounding tflite: the results of the
  // same graph read from .tflite, bit for bit).
  bool tflite_rounding = false;
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

// Whether Mote can compile each node, for `mote inspect --check`: the same rules and messages as
// read_model (so the same verdict as `mote compile`), but a refused node is recorded and the
// walk goes on. Its outputs are unavailable: a node that reads one is not attempted but named
// as blocked by the refused node. What could be read then passes the operator definitions'
// checks (ops::validate_each), a problem there given to the node the operator was made for.
struct NodeVerdict {
  int32_t index = 0;   // in the main graph
  std::string name;    // may be empty
  std::string type;    // ONNX's op_type
  std::string output;  // its first output's name (what names a node without a name)
  std::string domain;  // "ai.onnx" for the default domain
  int64_t opset = 0;   // the model's operator set version for that domain
  // Why Mote cannot compile it, as read_model says it ("node 3 'x' (Exp, domain ai.onnx,
  // opset 13): not supported; ..."); "" when it can. `reason` is the same without the node's
  // own "node 3 ...: " prefix.
  std::string problem;
  std::string reason;
  int32_t blocked_by = -1;   // not checked: an input depends on this refused node
  int32_t folded_into = -1;  // read with that node (the QuantizeLinear after it, a fused Relu)
  std::vector<std::string> becomes;  // Mote's operators made for it; none: folded away
};
struct CheckReport {
  std::vector<NodeVerdict> nodes;   // every node of the main graph, in the file's order
  std::vector<std::string> model;   // problems of no one node (a graph output, ...)
  std::vector<std::string> notes;   // as read_model's Graph::notes
  bool compiles() const;            // no problem at all: read_model would accept the model
};
// Throws InputError, as read_model, when the model as a whole cannot be read: not ONNX or
// truncated, refused by ONNX's checker, a float model, a graph input Mote cannot take (a dynamic
// shape without ImportOptions::input_shapes).
CheckReport check_model(std::span<const uint8_t> bytes, const ImportOptions& options = {});

}  // namespace mote::onnx
