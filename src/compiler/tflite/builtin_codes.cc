#include "compiler/tflite/builtin_codes.h"

#include <array>
#include <stdexcept>
#include <string_view>

namespace mote::tflite {
namespace {

// BuiltinOperator names, indexed by code (schema version 3, codes 0..209).
constexpr std::string_view kBuiltinNames[] = {
    "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE",
    "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP",
    "L2_NORMALIZATION", "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION",
    "LSTM", "MAX_POOL_2D", "MUL", "RELU", "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR",
    "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH", "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL",
    "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD", "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER",
    "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB", "DIV", "SQUEEZE",
    "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN", "EXP",
    "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE", "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU",
    "MAXIMUM", "ARG_MAX", "MINIMUM", "LESS", "NEG", "PADV2", "GREATER", "GREATER_EQUAL",
    "LESS_EQUAL", "SELECT", "SLICE", "SIN", "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE",
    "EXPAND_DIMS", "EQUAL", "NOT_EQUAL", "LOG", "SUM", "SQRT", "RSQRT", "SHAPE", "POW", "ARG_MIN",
    "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX", "PACK", "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND",
    "LOGICAL_NOT", "UNPACK", "REDUCE_MIN", "FLOOR_DIV", "REDUCE_ANY", "SQUARE", "ZEROS_LIKE",
    "FILL", "FLOOR_MOD", "RANGE", "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE",
    "MIRROR_PAD", "ABS", "SPLIT_V", "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND", "COS",
    "WHERE", "RANK", "ELU", "REVERSE_SEQUENCE", "MATRIX_DIAG", "QUANTIZE", "MATRIX_SET_DIAG",
    "ROUND", "HARD_SWISH", "IF", "WHILE", "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5",
    "SCATTER_ND", "SELECT_V2", "DENSIFY", "SEGMENT_SUM", "BATCH_MATMUL",
    "PLACEHOLDER_FOR_GREATER_OP_CODES", "CUMSUM", "CALL_ONCE", "BROADCAST_TO", "RFFT2D", "CONV_3D",
    "IMAG", "REAL", "COMPLEX_ABS", "HASHTABLE", "HASHTABLE_FIND", "HASHTABLE_IMPORT",
    "HASHTABLE_SIZE", "REDUCE_ALL", "CONV_3D_TRANSPOSE", "VAR_HANDLE", "READ_VARIABLE",
    "ASSIGN_VARIABLE", "BROADCAST_ARGS", "RANDOM_STANDARD_NORMAL", "BUCKETIZE", "RANDOM_UNIFORM",
    "MULTINOMIAL", "GELU", "DYNAMIC_UPDATE_SLICE", "RELU_0_TO_1", "UNSORTED_SEGMENT_PROD",
    "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_SUM", "ATAN2", "UNSORTED_SEGMENT_MIN", "SIGN",
    "BITCAST", "BITWISE_XOR", "RIGHT_SHIFT", "STABLEHLO_LOGISTIC", "STABLEHLO_ADD",
    "STABLEHLO_DIVIDE", "STABLEHLO_MULTIPLY", "STABLEHLO_MAXIMUM", "STABLEHLO_RESHAPE",
    "STABLEHLO_CLAMP", "STABLEHLO_CONCATENATE", "STABLEHLO_BROADCAST_IN_DIM",
    "STABLEHLO_CONVOLUTION", "STABLEHLO_SLICE", "STABLEHLO_CUSTOM_CALL", "STABLEHLO_REDUCE",
    "STABLEHLO_ABS", "STABLEHLO_AND", "STABLEHLO_COSINE", "STABLEHLO_EXPONENTIAL",
    "STABLEHLO_FLOOR", "STABLEHLO_LOG", "STABLEHLO_MINIMUM", "STABLEHLO_NEGATE", "STABLEHLO_OR",
    "STABLEHLO_POWER", "STABLEHLO_REMAINDER", "STABLEHLO_RSQRT", "STABLEHLO_SELECT",
    "STABLEHLO_SUBTRACT", "STABLEHLO_TANH", "STABLEHLO_SCATTER", "STABLEHLO_COMPARE",
    "STABLEHLO_CONVERT", "STABLEHLO_DYNAMIC_SLICE", "STABLEHLO_DYNAMIC_UPDATE_SLICE",
    "STABLEHLO_PAD", "STABLEHLO_IOTA", "STABLEHLO_DOT_GENERAL", "STABLEHLO_REDUCE_WINDOW",
    "STABLEHLO_SORT", "STABLEHLO_WHILE", "STABLEHLO_GATHER", "STABLEHLO_TRANSPOSE", "DILATE",
    "STABLEHLO_RNG_BIT_GENERATOR", "REDUCE_WINDOW", "STABLEHLO_COMPOSITE", "STABLEHLO_SHIFT_LEFT",
    "STABLEHLO_CBRT", "STABLEHLO_CASE",
};

struct OpCode {
  ir::OpType type;
  int32_t code;
};

constexpr std::array<OpCode, 18> kSupported = {{
    {ir::OpType::kConv2D, 3},
    {ir::OpType::kDepthwiseConv2D, 4},
    {ir::OpType::kFullyConnected, 9},
    {ir::OpType::kAveragePool2D, 1},
    {ir::OpType::kMaxPool2D, 17},
    {ir::OpType::kAdd, 0},
    {ir::OpType::kMul, 18},
    {ir::OpType::kSoftmax, 25},
    {ir::OpType::kReshape, 22},
    {ir::OpType::kQuantize, 114},
    {ir::OpType::kDequantize, 6},
    {ir::OpType::kPad, 34},
    {ir::OpType::kMean, 40},
    {ir::OpType::kConcatenation, 2},
    {ir::OpType::kTranspose, 39},
    {ir::OpType::kLogistic, 14},
    {ir::OpType::kResizeNearestNeighbor, 97},
    {ir::OpType::kHardSwish, 117},
}};

// TensorType names, indexed by value.
constexpr std::string_view kTensorTypeNames[] = {
    "FLOAT32", "FLOAT16", "INT32",      "UINT8",  "INT64",  "STRING", "BOOL", "INT16",
    "COMPLEX64", "INT8",  "FLOAT64",    "COMPLEX128", "UINT64", "RESOURCE", "VARIANT",
    "UINT32",  "UINT16",  "INT4",       "BFLOAT16", "INT2", "UINT4", "FLOAT8_E4M3FN",
    "FLOAT8_E5M2",
};

}  // namespace

std::string builtin_operator_name(int32_t code) {
  if (code >= 0 && static_cast<size_t>(code) < std::size(kBuiltinNames)) {
    return std::string(kBuiltinNames[code]);
  }
  return "BUILTIN_" + std::to_string(code);
}

std::optional<ir::OpType> op_type_from_builtin(int32_t code) {
  for (const OpCode& c : kSupported) {
    if (c.code == code) return c.type;
  }
  return std::nullopt;
}

int32_t builtin_code(ir::OpType type) {
  for (const OpCode& c : kSupported) {
    if (c.type == type) return c.code;
  }
  throw std::logic_error("builtin_code: operator type without a TFLite code");
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
  }
  throw std::logic_error("tensor_type: unknown data type");
}

}  // namespace mote::tflite
