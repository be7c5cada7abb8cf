#pragma once
// The rules every graph Mote accepts obeys. The TFLite reader runs them on every model it reads
// and the builder on every graph it builds, so later stages (passes, planner, emitter, kernels)
// may rely on them without checking again.

#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace mote::ops {

// Throws mote::InputError with a one-line message naming the tensor ("tensor 5 (name): ...") or
// the operator ("operator 3 (CONV_2D): ...") and the rule broken. Checked:
// - tensors: rank <= kMaxRank, every dimension >= 1, size <= kMaxTensorBytes, type float32, int8
//   or int32; int8 tensors quantized; quantization arrays of equal length, scales finite and
//   positive, zero points in the type's range, per-channel scale count == the size of
//   quantized_dimension; constants hold exactly their bytes, other tensors none;
// - graph: at least one operator and one output, indices in range, inputs are not constants;
// - data flow: operators in execution order, every tensor produced once, never a constant or a
//   graph input, and produced before it is read;
// - operators: their definition's check (compiler/ops/<op>.cc): arity, optional inputs, option
//   type, tensor types (int8 data, int8 weights, int32 bias, float32 only into QUANTIZE and out
//   of DEQUANTIZE), weights and parameter tensors
//   constant and data tensors not, output shape from the input shapes and options, and
//   quantization as TFLite's int8 kernels require it (weights symmetric, per-channel scales one
//   per output channel, bias scale == input scale * weight scale, equal input and output
//   quantization where the kernel moves bytes without requantizing, fixed 1/256 output scale
//   for SOFTMAX and LOGISTIC).
std::vector<std::string> validate(const ir::Graph& graph);

// Why `graph` is a float (or partly quantized) model, with how to quantize it, or "" when no
// operator besides the QUANTIZE and DEQUANTIZE at its edges computes in float32.
std::string float_model_problem(const ir::Graph& graph);

// The same rules, every operator judged on its own, for `mote inspect --check`: one problem per
// operator of `graph` ("" when it passes) and the problems that belong to no operator (graph
// inputs and outputs, a tensor no operator touches). An operator that reads or writes a tensor
// with a problem is refused with that problem. `tensor_problems[i]`, when not empty, is tensor
// i's problem found by the caller (the reader): the tensor is not checked again.
// `produced_elsewhere` lists tensors made by operators left out of `graph` (ones Mote lacks),
// so that their readers are judged on their own merits.
struct ValidationReport {
  std::vector<std::string> operators;
  std::vector<std::string> graph;
  std::vector<std::string> notes;  // what was taken although unusual (Checker::note)
};
ValidationReport validate_each(const ir::Graph& graph,
                               const std::vector<std::string>& tensor_problems = {},
                               const std::vector<int32_t>& produced_elsewhere = {});

}  // namespace mote::ops
