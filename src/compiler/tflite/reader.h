#pragma once
// Reads a TensorFlow Lite model (.tflite) into Mote's graph IR.

#include <cstdint>
#include <filesystem>
#include <span>

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

}  // namespace mote::tflite
