#include "compiler/import/model_file.h"

#include <cstring>

#include "compiler/ir/error.h"

namespace mote::import {

ModelFormat detect_format(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  if (bytes.size() >= 8 && std::memcmp(bytes.data() + 4, "TFL3", 4) == 0) return ModelFormat::kTflite;
  if (path.extension() == ".onnx" || onnx::looks_like_onnx(bytes)) return ModelFormat::kOnnx;
  return ModelFormat::kTflite;
}

ir::Graph read_model_file(const std::filesystem::path& path, const ImportOptions& options) {
  const std::vector<uint8_t> bytes = tflite::read_file(path);
  if (detect_format(path, bytes) == ModelFormat::kOnnx) return onnx::read_model(bytes, options);
  return tflite::read_model(bytes);
}

ModelCheck check_model_file(const std::filesystem::path& path, const ImportOptions& options) {
  const std::vector<uint8_t> bytes = tflite::read_file(path);
  if (detect_format(path, bytes) == ModelFormat::kTflite) return tflite::check_model(bytes);
  try {
    return onnx::check_model(bytes, options);
  } catch (const InputError& e) {
    onnx::CheckReport report;
    report.model.push_back(e.what());
    return report;
  }
}

}  // namespace mote::import
