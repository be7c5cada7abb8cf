#include "compiler/tflite/builtin_codes.h"

#include "compiler/tflite/tflite_subset_generated.h"

#include <array>
#include <stdexcept>
#include <string_view>

namespace mote::tflite {
namespace {

// TensorType names, indexed by value.
constexpr std::string_view kTensorTypeNames[] = {
    "FLOAT32", "FLOAT16", "INT32",      "UINT8",  "INT64",  "STRING", "BOOL", "INT16",
    "COMPLEX64", "INT8",  "FLOAT64",    "COMPLEX128", "UINT64", "RESOURCE", "VARIANT",
    "UINT32",  "UINT16",  "INT4",       "BFLOAT16", "INT2", "UINT4", "FLOAT8_E4M3FN",
    "FLOAT8_E5M2",
};

}  // namespace

std::string builtin_operator_name(int32_t code) {
  const char* name = fb::EnumNameBuiltinOperator(static_cast<fb::BuiltinOperator>(code));
  if (name != nullptr && *name != '\0') return name;
  return "BUILTIN_" + std::to_string(code);
}

std::string tensor_type_name(int8_t type) {
  if (type >= 0 && static_cast<size_t>(type) < std::size(kTensorTypeNames)) {
    return std::string(kTensorTypeNames[type]);
  }
  return "TYPE_" + std::to_string(type);
}

std::optional<ir::DataType> data_type_from_tensor_type(int8_t type) {
  switch (type) {
    case kTensorFloat32: return ir::DataType::kFloat32;
    case kTensorInt32: return ir::DataType::kInt32;
    case kTensorInt8: return ir::DataType::kInt8;
    case 7: return ir::DataType::kInt16;  // INT16: 16x8 activations, SVDF's weights_time and state
    case 4: return ir::DataType::kInt64;  // INT64: 16x8 biases, slice parameters
    case 3: return ir::DataType::kUInt8;  // UINT8: a camera frame into a first QUANTIZE
    case 17: return ir::DataType::kInt4;  // INT4: weights, packed two per byte
    case 15: return ir::DataType::kUInt32;  // UINT32: signal operators' energies
    case 12: return ir::DataType::kUInt64;  // UINT64: the signal filter bank's sums
    default: return std::nullopt;
  }
}

int8_t tensor_type(ir::DataType type) {
  switch (type) {
    case ir::DataType::kFloat32: return kTensorFloat32;
    case ir::DataType::kInt32: return kTensorInt32;
    case ir::DataType::kInt8: return kTensorInt8;
    case ir::DataType::kInt16: return 7;
    case ir::DataType::kInt64: return 4;
    case ir::DataType::kUInt8: return 3;
    case ir::DataType::kBool: return 6;
    case ir::DataType::kInt4: return 17;
    case ir::DataType::kUInt32: return 15;
    case ir::DataType::kUInt64: return 12;
  }
  throw std::logic_error("tensor_type: unknown data type");
}

}  // namespace mote::tflite
