#pragma once
// Mote's graph IR: what the TFLite reader produces, the builder creates, and the passes, planner
// and emitter consume. Independent of TFLite's types; plain value types that compare with ==.

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "mote/operators.h"

namespace mote::ir {

// kInt4: weights packed two per byte as TFLite stores INT4 (element 2k in the low nibble of byte
// k); constants of the convolutions and FULLY_CONNECTED only.
enum class DataType : uint8_t { kFloat32, kInt8, kInt16, kInt32, kInt64, kUInt8, kBool, kInt4,
                                 kUInt32, kUInt64 };

std::string_view to_string(DataType type);
// Bytes per element (kInt4: 1, the byte its two elements share; storage_bytes is exact).
size_t element_size(DataType type);
// Bytes that hold `elements` values of `type` ((elements + 1) / 2 for kInt4).
int64_t storage_bytes(DataType type, int64_t elements);

// Affine quantization: real = scale * (q - zero_point). One entry per tensor, or one per slice
// along quantized_dimension (per-channel). Empty scale means "not quantized".
struct Quantization {
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  int32_t quantized_dimension = 0;

  bool empty() const { return scale.empty(); }
  bool per_channel() const { return scale.size() > 1; }
  bool operator==(const Quantization&) const = default;
};

struct Tensor {
  std::string name;
  DataType type = DataType::kInt8;
  std::vector<int32_t> shape;
  Quantization quantization;
  // Constant contents (weights, biases, shapes). Empty for activations, graph inputs and outputs.
  std::vector<uint8_t> data;
  bool is_constant = false;
  // State (TFLite's is_variable): bytes that persist from one run to the next, read and written
  // by the operators that keep state (OpDef::state_inputs). Never constant, never a graph input
  // or output; planned as a region of the arena that no other buffer shares, live at every
  // step. Its initial value (and after Executor::reset_state) is TFLite's: the zero point for
  // int8, zero bytes otherwise.
  bool is_variable = false;

  int64_t num_elements() const;  // product of shape (1 for a scalar)
  int64_t num_bytes() const { return storage_bytes(type, num_elements()); }
  bool operator==(const Tensor&) const = default;
};

// One per line of MOTE_OPERATORS (mote/operators.h), in the program format's order.
enum class OpType : uint8_t {
#define MOTE_OP_ENUMERATOR(kind, name, definition) k##kind,
  MOTE_OPERATORS(MOTE_OP_ENUMERATOR)
#undef MOTE_OP_ENUMERATOR
};
inline constexpr size_t kNumOpTypes = 0
#define MOTE_OP_COUNT(kind, name, definition) +1
    MOTE_OPERATORS(MOTE_OP_COUNT)
#undef MOTE_OP_COUNT
    ;

// TFLite's builtin operator name, e.g. "CONV_2D".
std::string_view to_string(OpType type);

// "[1,8,8,3]"; "[]" for a scalar.
std::string shape_string(const std::vector<int32_t>& shape);

enum class Padding : uint8_t { kSame, kValid };
enum class Activation : uint8_t { kNone, kRelu, kReluN1To1, kRelu6 };

std::string_view to_string(Padding padding);
std::string_view to_string(Activation activation);

// A PAD folded into its window consumer (passes/fold_pads.h): rows and columns of the input's zero
// point the consumer reads around its input, before its own `padding` (which then applies to the
// padded size). Never read from or written to a model file.
struct FoldedPad {
  int32_t top = 0, bottom = 0, left = 0, right = 0;
  bool empty() const { return top == 0 && bottom == 0 && left == 0 && right == 0; }
  bool operator==(const FoldedPad&) const = default;
};

struct Conv2DOptions {
  Padding padding = Padding::kSame;
  int32_t stride_w = 1, stride_h = 1;
  int32_t dilation_w = 1, dilation_h = 1;
  Activation activation = Activation::kNone;
  FoldedPad folded;
  bool operator==(const Conv2DOptions&) const = default;
};

struct DepthwiseConv2DOptions {
  Padding padding = Padding::kSame;
  int32_t stride_w = 1, stride_h = 1;
  int32_t depth_multiplier = 1;
  int32_t dilation_w = 1, dilation_h = 1;
  Activation activation = Activation::kNone;
  FoldedPad folded;
  bool operator==(const DepthwiseConv2DOptions&) const = default;
};

struct FullyConnectedOptions {
  Activation activation = Activation::kNone;
  bool keep_num_dims = false;
  bool operator==(const FullyConnectedOptions&) const = default;
};

struct Pool2DOptions {
  Padding padding = Padding::kValid;
  int32_t stride_w = 1, stride_h = 1;
  int32_t filter_w = 1, filter_h = 1;
  Activation activation = Activation::kNone;
  FoldedPad folded;
  bool operator==(const Pool2DOptions&) const = default;
};

// The binary arithmetic operators (a fused activation only).
struct ElementwiseOptions {
  Activation activation = Activation::kNone;
  bool operator==(const ElementwiseOptions&) const = default;
};

struct SoftmaxOptions {
  float beta = 1.0f;
  bool operator==(const SoftmaxOptions&) const = default;
};

struct ReshapeOptions {
  std::vector<int32_t> new_shape;  // may be empty when the shape comes from the second input
  bool operator==(const ReshapeOptions&) const = default;
};

// SQUEEZE: the dimensions of size 1 to remove (negative counts from the end); empty = all of them.
struct SqueezeOptions {
  std::vector<int32_t> squeeze_dims;
  bool operator==(const SqueezeOptions&) const = default;
};

struct ConcatenationOptions {
  int32_t axis = 0;
  Activation activation = Activation::kNone;
  bool operator==(const ConcatenationOptions&) const = default;
};

// MEAN, SUM and REDUCE_MAX (TFLite's ReducerOptions); the axes are the operator's second input.
struct MeanOptions {
  bool keep_dims = false;
  bool operator==(const MeanOptions&) const = default;
};

// RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR (their TFLite options hold the same two flags).
struct ResizeNearestNeighborOptions {
  bool align_corners = false;
  bool half_pixel_centers = false;
  bool operator==(const ResizeNearestNeighborOptions&) const = default;
};

// TRANSPOSE_CONV (TFLite's TransposeConvOptions; the output shape is the first input).
struct TransposeConvOptions {
  Padding padding = Padding::kSame;
  int32_t stride_w = 1, stride_h = 1;
  Activation activation = Activation::kNone;
  bool operator==(const TransposeConvOptions&) const = default;
};

struct LeakyReluOptions {
  float alpha = 0.2f;
  bool operator==(const LeakyReluOptions&) const = default;
};

// ARG_MAX and ARG_MIN (TFLite's ArgMaxOptions / ArgMinOptions); the axis is the second input.
struct ArgMinMaxOptions {
  DataType output_type = DataType::kInt32;
  bool operator==(const ArgMinMaxOptions&) const = default;
};

// STRIDED_SLICE (TFLite's StridedSliceOptions; begin, end and strides are inputs 1 to 3).
struct StridedSliceOptions {
  int32_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0,
          shrink_axis_mask = 0;
  bool offset = false;  // end is relative to begin
  bool operator==(const StridedSliceOptions&) const = default;
};

// SPLIT and SPLIT_V: how many outputs.
struct SplitOptions {
  int32_t num_splits = 1;
  bool operator==(const SplitOptions&) const = default;
};

// PACK: how many inputs, stacked along `axis` of the output (negative counts from the end).
struct PackOptions {
  int32_t values_count = 1;
  int32_t axis = 0;
  bool operator==(const PackOptions&) const = default;
};

// UNPACK: how many outputs, one per index along `axis` of the input.
struct UnpackOptions {
  int32_t num = 1;
  int32_t axis = 0;
  bool operator==(const UnpackOptions&) const = default;
};

struct GatherOptions {
  int32_t axis = 0;
  int32_t batch_dims = 0;
  bool operator==(const GatherOptions&) const = default;
};

// DEPTH_TO_SPACE and SPACE_TO_DEPTH.
struct BlockSizeOptions {
  int32_t block_size = 1;
  bool operator==(const BlockSizeOptions&) const = default;
};

// SVDF (TFLite's SVDFOptions; asymmetric_quantize_inputs only concerns float inputs).
struct SvdfOptions {
  int32_t rank = 1;
  Activation activation = Activation::kNone;
  bool operator==(const SvdfOptions&) const = default;
};

// BATCH_MATMUL: swap the last two dimensions of the lhs (adj_x) or rhs (adj_y) before multiplying.
struct BatchMatMulOptions {
  bool adj_x = false;
  bool adj_y = false;
  bool operator==(const BatchMatMulOptions&) const = default;
};

// UNIDIRECTIONAL_SEQUENCE_LSTM (TFLite's UnidirectionalSequenceLSTMOptions; proj_clip only
// concerns projection and asymmetric_quantize_inputs float inputs, neither of which Mote takes).
// The activation stays TFLite's code: the LSTM's is a squashing function (TANH, 4), which no
// other operator fuses, so it has no ir::Activation.
inline constexpr int8_t kTfliteTanh = 4;
struct LstmOptions {
  int8_t activation_code = kTfliteTanh;
  float cell_clip = 0.0f;
  bool time_major = true;
  bool diagonal_recurrent_tensors = false;
  bool operator==(const LstmOptions&) const = default;
};

// TFLM's signal operators (custom operators, their options a FlexBuffers map): every option by
// name, each operator reading its own (the others stay 0).
struct SignalOptions {
  int32_t shift = 0;                  // SignalWindow
  int32_t fft_length = 0;             // SignalRfft
  int32_t start_index = 0;            // SignalEnergy
  int32_t end_index = 0;
  int32_t num_channels = 0;           // SignalFilterBank, ...SpectralSubtraction
  uint32_t smoothing = 0;             // SignalFilterBankSpectralSubtraction
  uint32_t one_minus_smoothing = 0;
  uint32_t alternate_smoothing = 0;
  uint32_t alternate_one_minus_smoothing = 0;
  uint32_t min_signal_remaining = 0;
  int32_t smoothing_bits = 0;
  int32_t spectral_subtraction_bits = 0;
  bool clamping = false;
  int32_t snr_shift = 0;              // SignalPCAN
  int32_t input_correction_bits = 0;  // SignalFilterBankLog
  int32_t output_scale = 0;
  bool operator==(const SignalOptions&) const = default;
};

// MoteFloatRnn: ONNX's LSTM or GRU (default activations) computed in float32, the float island
// ONNX Runtime's and PyTorch's quantized exports leave between int8 layers.
enum class RnnCell : uint8_t { kLstm, kGru };
enum class RnnDirection : uint8_t { kForward, kReverse, kBidirectional };
struct RnnOptions {
  RnnCell cell = RnnCell::kLstm;
  RnnDirection direction = RnnDirection::kForward;
  bool linear_before_reset = false;  // GRU only
  bool batch_first = false;  // ONNX's layout 1: X [B, T, I], Y [B, T, D, H], states [B, D, H]
  bool operator==(const RnnOptions&) const = default;
};

// MoteTableLookup: one of ONNX's elementwise functions of one input between a DequantizeLinear
// and a QuantizeLinear, run as a 256-entry table of its float definition. alpha and beta are the
// ONNX operator's attributes where it has them (HardSigmoid's alpha and beta, Elu's, Celu's and
// ThresholdedRelu's alpha, Selu's alpha and gamma as beta); Gelu's approximation is kGeluTanh.
// kClip is Relu and Clip that requantize (alpha and beta its bounds). The last six are Add, Mul,
// Div, Sub and Pow of the value and a constant c (alpha), in float32: x + c (Sub's x - c too, as
// x + -c), x * c, x / c, c / x, c - x, x ^ c.
enum class ElementFunction : uint8_t {
  kHardSigmoid, kElu, kSelu, kCelu, kThresholdedRelu, kSoftplus, kSoftsign, kMish, kGelu,
  kGeluTanh, kExp, kLog, kSqrt, kReciprocal, kAbs, kNeg, kErf, kSin, kCos, kFloor, kCeil, kRound,
  kSign, kClip, kAddConstant, kMulConstant, kDivByConstant, kConstantDivBy, kConstantSub, kPowConstant
};
inline constexpr int kNumElementFunctions = static_cast<int>(ElementFunction::kPowConstant) + 1;
struct TableLookupOptions {
  ElementFunction function = ElementFunction::kHardSigmoid;
  float alpha = 0, beta = 0;
  bool operator==(const TableLookupOptions&) const = default;
};

// Operators without options of their own (QUANTIZE, PAD, most elementwise kinds) hold
// std::monostate.
using Options = std::variant<std::monostate, Conv2DOptions, DepthwiseConv2DOptions,
                             FullyConnectedOptions, Pool2DOptions, ElementwiseOptions,
                             SoftmaxOptions, ReshapeOptions, ConcatenationOptions, MeanOptions,
                             ResizeNearestNeighborOptions, TransposeConvOptions,
                             LeakyReluOptions, SqueezeOptions, ArgMinMaxOptions,
                             StridedSliceOptions, SplitOptions, PackOptions, UnpackOptions,
                             GatherOptions, BlockSizeOptions, SvdfOptions, BatchMatMulOptions,
                             LstmOptions, SignalOptions, RnnOptions,
                             TableLookupOptions>;

// An absent optional input (for example a convolution without bias).
inline constexpr int32_t kNoTensor = -1;

struct Operator {
  OpType type = OpType::kConv2D;
  std::vector<int32_t> inputs;   // tensor indices, kNoTensor for an absent optional input
  std::vector<int32_t> outputs;  // tensor indices
  Options options;
  bool operator==(const Operator&) const = default;
};

// One subgraph. Operators are stored in execution order.
struct Graph {
  std::vector<Tensor> tensors;
  std::vector<Operator> operators;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  // Per input and output, the layout of its data where the model states one ("NCHW", "NHWC"; an
  // ONNX model's 4-D tensors), "" otherwise; empty when the model states none (.tflite).
  std::vector<std::string> input_layouts;
  std::vector<std::string> output_layouts;
  // Per input: the model's input is float32 and the graph holds it quantized, the model's QUANTIZE
  // of it taken out (passes/quantized_inputs.h); the caller writes floats that the runtime
  // quantizes. Empty: none.
  std::vector<bool> float_inputs;
  // What the reader accepted other than as written, one sentence each ("tensor 5 (bias):
  // quantized_dimension 3 ... ignored"); `mote inspect` lists them.
  std::vector<std::string> notes;
  // The int8 requantizations of scale ratios (convolutions, fully connected, concatenation,
  // requantize) round once, as ONNX Runtime's float requantization does, where TFLite's form
  // rounds twice (kernels::quantize_multiplier_rounding_once): the same kernels, other
  // multipliers, the weights' scale ratio taken in float32 (ONNX Runtime's); a bilinear resize
  // rounds half to even (ONNX's QuantizeLinear after a float Resize). The ONNX reader sets it; a
  // .tflite model keeps TFLite's results bit for bit.
  bool round_once = false;
  bool operator==(const Graph&) const = default;
};

}  // namespace mote::ir
