#pragma once
// What an operator's lowering (`OpDef::lower`) works with: the operator and its tensors, the
// program's constant pool, and the parameter computations several operators share. Lowering
// never refuses a model: what the kernels cannot take is refused by `OpDef::check` (ops::validate,
// run on every model read), so `mote inspect`, `mote plan` and `mote compile` give one verdict.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/emit/emit.h"
#include "compiler/ir/graph.h"
#include "mote/kernels/quantization.h"
#include "mote/schema/mote_generated.h"

namespace mote::ops {

// Scale and zero point of a per-tensor quantized tensor.
inline float scale_of(const ir::Tensor& t) { return t.quantization.scale.at(0); }
inline int32_t zero_point_of(const ir::Tensor& t) {
  return static_cast<int32_t>(t.quantization.zero_point.at(0));
}
// The values of a constant int32 or int64 tensor (shapes, axes, paddings, permutations).
std::vector<int32_t> int_values(const ir::Tensor& t);

kernels::FusedActivation fused(ir::Activation activation);

// kernels::quantize_multiplier for a result rounded once, as a float requantization rounds it (ONNX
// Runtime's). Below 1/2, TFLite's form (a multiplier in [2^30, 2^31) and a right shift) rounds
// the high product to an integer and that again in the shift: a result whose exact value lies
// within 2^(shift - 1) of a half may move by one. Here, for ratios in [2^-kRoundOnceMinExponent,
// 1/2), the multiplier is real * 2^31 (at least 2^(31 - kRoundOnceMinExponent)) with shift 0: the
// kernels' arithmetic is unchanged, the high product rounds to the result itself, a result
// within 256 steps of zero off by less than 2^-12 of a step. Smaller ratios, whose second
// rounding is as fine, and ratios of 1/2 or more (rounded once already) keep TFLite's form.
constexpr int kRoundOnceMinExponent = 11;
kernels::QuantizedMultiplier quantize_multiplier_rounding_once(double real_multiplier);

class LowerContext {
 public:
  LowerContext(const ir::Graph& graph, size_t step, emit::ConstantPool& constants)
      : graph_(graph), step_(step), constants_(constants) {}

  const ir::Graph& graph() const { return graph_; }
  const ir::Operator& op() const { return graph_.operators[step_]; }
  const ir::Tensor& tensor(int32_t index) const {
    return graph_.tensors[static_cast<size_t>(index)];
  }
  const ir::Tensor& in(size_t k) const { return tensor(op().inputs[k]); }
  const ir::Tensor& out() const { return tensor(op().outputs[0]); }
  bool has_input(size_t k) const {
    return k < op().inputs.size() && op().inputs[k] != ir::kNoTensor;
  }

  emit::ConstantPool& constants() { return constants_; }

  // A requantization's multiplier and shift: TFLite's, or rounding once (ir::Graph::round_once).
  kernels::QuantizedMultiplier multiplier(double real) const {
    return graph_.round_once ? quantize_multiplier_rounding_once(real)
                             : kernels::quantize_multiplier(real);
  }

  // input_scale * weight_scale / output_scale of a convolution or fully connected layer: in
  // float32 when rounding once, as ONNX Runtime's QLinearConv and QLinearMatMul compute the scale
  // they requantize by; else in double, as TFLite's PopulateConvolutionQuantizationParams.
  double weights_ratio(float input_scale, float weight_scale, float output_scale) const {
    if (graph_.round_once) return static_cast<double>(input_scale * weight_scale / output_scale);
    return static_cast<double>(input_scale) * weight_scale / output_scale;
  }

  // An int8 -> int8 table (kernels::lookup_table, indexed by (uint8)x) of f as ONNX defines the
  // quantized operator: the input dequantized in float32, f (its result taken to float32), the
  // result divided by the output scale in float32, rounded half to even, plus the zero point,
  // saturated (-128 where f is NaN). Written to the constant pool.
  schema::Region onnx_table(const std::function<double(double)>& f);

  // The clamp of a fused activation in the output's quantized domain.
  kernels::ActivationRange activation_range(ir::Activation activation) const;

  // Per output channel multipliers and shifts of input_scale * weight_scale[c] / output_scale
  // (weights_ratio), written to the constant pool. `input` and `weights` are the operator's
  // input positions.
  void channel_requant(int32_t channels, schema::Region* multipliers, schema::Region* shifts,
                       size_t input = 0, size_t weights = 1);
  // The same, into an options table's `multipliers` and `shifts`.
  template <typename Options>
  void set_channel_requant(Options& options, int32_t channels, size_t input = 0,
                           size_t weights = 1) {
    schema::Region m, s;
    channel_requant(channels, &m, &s, input, weights);
    options.multipliers = std::make_unique<schema::Region>(m);
    options.shifts = std::make_unique<schema::Region>(s);
  }

 private:
  const ir::Graph& graph_;
  size_t step_;
  emit::ConstantPool& constants_;
};

}  // namespace mote::ops
