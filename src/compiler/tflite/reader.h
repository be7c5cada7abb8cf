#pragma once
// Reads a TensorFlow Lite model (.tflite) into Mote's graph IR.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace mote::tflite {

// Reads subgraph 0 of a .tflite flatbuffer: tensors (name, shape, type, per-tensor or per-channel
// quantization), constant data (inside the flatbuffer or stored after it with Buffer.offset/size),
// operators with their options, graph inputs and outputs. The bytes are untrusted: the flatbuffer
// is verified first, every index and size is checked, and the result passes ops::validate.
// Throws mote::InputError with a one-line reason, for example
// "operator 12 (UNIDIRECTIONAL_SEQUENCE_LSTM): not supported".
ir::Graph read_model(std::span<const uint8_t> bytes);

// read_model on a file's contents. The message of the InputError carries no file name (callers
// print "error: <file>: <message>"); an unreadable file is an InputError too.
ir::Graph read_model_file(const std::filesystem::path& path);

// A model file's bytes; InputError (without the file name) when it cannot be read or is 2 GiB or
// larger.
std::vector<uint8_t> read_file(const std::filesystem::path& path);

// Whether Mote can compile each operator, for `mote inspect --check`: the same rules as
// read_model (so the same verdict as `mote compile`), but every operator is judged on its own
// instead of stopping at the first problem. An operator Mote lacks or cannot read is refused and
// its outputs count as produced, so the operators after it are still judged.
struct OperatorVerdict {
  uint32_t index;       // in subgraph 0
  std::string type;     // TFLite's name, "?" when its operator code is out of range
  std::string problem;  // why Mote cannot compile it; "" when it can
};
struct SupportReport {
  std::vector<OperatorVerdict> operators;
  std::vector<std::string> model;  // problems of no one operator (graph inputs, outputs, ...)
  std::vector<std::string> notes;  // what the reader ignored, as read_model's Graph::notes
  bool float_model = false;        // an operator computes in float32 (ops::float_model_problem)
  bool compiles() const;           // no problem at all: read_model would accept the model
};
// Throws InputError, as read_model, only when the file is no readable TFLite model at all
// (not a flatbuffer, wrong schema version, no subgraph or no tensors).
SupportReport check_model(std::span<const uint8_t> bytes);
SupportReport check_model_file(const std::filesystem::path& path);

}  // namespace mote::tflite
