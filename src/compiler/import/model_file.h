#pragma once
// The one place that decides how a model file is read: .tflite (TensorFlow Lite's flatbuffer)
// or .onnx (quantized ONNX), by the file's contents and name. Every command that takes a model
// reads it through here.

#include <filesystem>
#include <variant>

#include "compiler/ir/graph.h"
#include "compiler/onnx/reader.h"
#include "compiler/tflite/reader.h"

namespace mote::import {

using onnx::ImportOptions;

enum class ModelFormat { kTflite, kOnnx };

// TFLite when the bytes carry the TFL3 identifier; ONNX when the name ends in .onnx or the
// bytes start like an ONNX model; else TFLite (whose reader then says what is wrong).
ModelFormat detect_format(const std::filesystem::path& path, std::span<const uint8_t> bytes);

// The model as Mote's IR, or mote::InputError with the reader's one-line reason (no file name:
// callers print "error: <file>: <message>").
ir::Graph read_model_file(const std::filesystem::path& path, const ImportOptions& options = {});

// `mote inspect --check`: each operator's verdict (.tflite) or each node's (.onnx). An ONNX
// model that cannot be read as a whole (not ONNX, a float model, a dynamic shape) has that one
// problem in CheckReport::model and no nodes. InputError when the file cannot be read, or is a
// .tflite model that is no readable TFLite model at all.
using ModelCheck = std::variant<tflite::SupportReport, onnx::CheckReport>;
ModelCheck check_model_file(const std::filesystem::path& path, const ImportOptions& options = {});

}  // namespace mote::import
