#pragma once
// Writes a graph as a .tflite file (schema version 3) that TensorFlow Lite and Mote's reader
// accept: operator codes with both the deprecated byte code and the extended code, buffer 0
// empty, one buffer per constant, options tables as TFLite's converter writes them.

#include <cstdint>
#include <memory>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/tflite/tflite_subset_generated.h"

namespace mote::builder {

struct WriteOptions {
  // Store constant data after the flatbuffer (Buffer.offset/size, 16-byte aligned) instead of
  // inside it, the way TFLite writes models over 2 GB.
  bool external_buffers = false;
};

// The graph is written as it is, valid or not (tests write broken models on purpose); operator
// types and tensor types must be ones the .tflite format has.
std::vector<uint8_t> write_model(const ir::Graph& graph, const WriteOptions& options = {});

// The two halves of write_model, for tests that edit a model in ways the IR cannot express
// (unsupported operators or types, indices out of range). pack_model moves constant data out of
// `model` when writing external buffers.
std::unique_ptr<tflite::fb::ModelT> to_tflite_object(const ir::Graph& graph);
std::vector<uint8_t> pack_model(tflite::fb::ModelT& model, const WriteOptions& options = {});

}  // namespace mote::builder
