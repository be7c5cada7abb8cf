#pragma once
// Numbers the .tflite format assigns to operators and tensor types, and their names, shared by
// the reader and the builder's writer.

#include <cstdint>
#include <optional>
#include <string>

#include "compiler/ir/graph.h"

namespace mote::tflite {

// BuiltinOperator values Mote refers to by name.
inline constexpr int32_t kBuiltinCustom = 32;
// Codes at or above this value only fit the extended OperatorCode.builtin_code field.
inline constexpr int32_t kBuiltinPlaceholderForGreaterOpCodes = 127;

// TensorType values.
inline constexpr int8_t kTensorFloat32 = 0;
inline constexpr int8_t kTensorInt32 = 2;
inline constexpr int8_t kTensorInt8 = 9;

// The format's name of a builtin operator ("CONV_2D"), or "BUILTIN_<code>" for a code the
// schema subset's BuiltinOperator enum does not know.
std::string builtin_operator_name(int32_t code);

// (Which operator a code stands for is its definition's: ops::op_type_for_builtin.)

// The format's name of a tensor type ("INT16"), or "TYPE_<value>" when unknown.
std::string tensor_type_name(int8_t type);
std::optional<ir::DataType> data_type_from_tensor_type(int8_t type);
int8_t tensor_type(ir::DataType type);

}  // namespace mote::tflite
