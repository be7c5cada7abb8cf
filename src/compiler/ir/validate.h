#pragma once
// The rules every graph Mote accepts obeys. The TFLite reader runs them on every model it reads
// and the builder on every graph it builds, so later stages (passes, planner, emitter, kernels)
// may rely on them without checking again.

#include <cstdint>

#include "compiler/ir/graph.h"

namespace mote::ir {

// Limits that keep every size computation on an accepted graph far from overflow.
inline constexpr size_t kMaxRank = 6;
inline constexpr int64_t kMaxTensorBytes = (int64_t{1} << 31) - 1;

// Throws mote::InputError with a one-line message naming the tensor ("tensor 5 (name): ...") or
// the operator ("operator 3 (CONV_2D): ...") and the rule broken. Checked:
// - tensors: rank <= kMaxRank, every dimension >= 1, size <= kMaxTensorBytes, type float32, int8
//   or int32; int8 tensors quantized; quantization arrays of equal length, scales finite and
//   positive, zero points in the type's range, per-channel scale count == the size of
//   quantized_dimension; constants hold exactly their bytes, other tensors none;
// - graph: at least one operator and one output, indices in range, inputs are not constants;
// - data flow: operators in execution order, every tensor produced once, never a constant or a
//   graph input, and produced before it is read;
// - operators: arity, optional inputs, option type, tensor types (int8 data, int8 weights, int32
//   bias, float32 only into QUANTIZE and out of DEQUANTIZE), weights and parameter tensors
//   constant and data tensors not, output shape from the input shapes and options, and
//   quantization as TFLite's int8 kernels require it (weights symmetric, per-channel scales one
//   per output channel, bias scale == input scale * weight scale, equal input and output
//   quantization where the kernel moves bytes without requantizing, fixed 1/256 output scale
//   for SOFTMAX and LOGISTIC).
void validate(const Graph& graph);

// Output size of a convolution or pooling window along one axis as TFLite computes it (0 when
// the window does not fit). Inputs must be positive.
int64_t window_output_size(int64_t input, int64_t filter, int64_t stride, int64_t dilation,
                           Padding padding);

// Padding TFLite applies before the first element along one axis (the rest goes after).
int64_t window_padding_before(int64_t input, int64_t filter, int64_t stride, int64_t dilation,
                              Padding padding);

}  // namespace mote::ir
