#include "compiler/ir/graph.h"
#include "compiler/ir/label.h"

namespace mote::ir {

std::string_view to_string(DataType type) {
  switch (type) {
    case DataType::kFloat32: return "float32";
    case DataType::kInt8: return "int8";
    case DataType::kInt16: return "int16";
    case DataType::kInt32: return "int32";
    case DataType::kInt64: return "int64";
    case DataType::kUInt8: return "uint8";
    case DataType::kBool: return "bool";
    case DataType::kInt4: return "int4";
    case DataType::kUInt32: return "uint32";
    case DataType::kUInt64: return "uint64";
  }
  return "unknown";
}

size_t element_size(DataType type) {
  switch (type) {
    case DataType::kFloat32: return 4;
    case DataType::kInt8: return 1;
    case DataType::kInt16: return 2;
    case DataType::kInt32: return 4;
    case DataType::kInt64: return 8;
    case DataType::kUInt8: return 1;
    case DataType::kBool: return 1;
    case DataType::kInt4: return 1;
    case DataType::kUInt32: return 4;
    case DataType::kUInt64: return 8;
  }
  return 1;
}

int64_t storage_bytes(DataType type, int64_t elements) {
  return type == DataType::kInt4 ? (elements + 1) / 2
                                 : elements * static_cast<int64_t>(element_size(type));
}

int64_t Tensor::num_elements() const {
  int64_t n = 1;
  for (int32_t d : shape) n *= d;
  return n;
}

std::string_view to_string(OpType type) {
  switch (type) {
#define MOTE_OP_NAME(kind, name, definition) \
  case OpType::k##kind:                      \
    return name;
    MOTE_OPERATORS(MOTE_OP_NAME)
#undef MOTE_OP_NAME
  }
  return "UNKNOWN";
}

std::string tensor_label(size_t index, std::string_view name) {
  std::string label = "tensor " + std::to_string(index);
  if (!name.empty()) label += " (" + std::string(name) + ")";
  return label;
}

std::string shape_string(const std::vector<int32_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string_view to_string(Padding padding) {
  return padding == Padding::kSame ? "SAME" : "VALID";
}

std::string_view to_string(Activation activation) {
  switch (activation) {
    case Activation::kNone: return "NONE";
    case Activation::kRelu: return "RELU";
    case Activation::kReluN1To1: return "RELU_N1_TO_1";
    case Activation::kRelu6: return "RELU6";
  }
  return "UNKNOWN";
}

}  // namespace mote::ir
