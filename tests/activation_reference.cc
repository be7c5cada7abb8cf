#include "tests/activation_reference.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "src/kernels/portable/ops_test_util.h"

namespace mote::testing {

Q q_of(const ir::Tensor& t) {
  return {t.quantization.scale.at(0), static_cast<int32_t>(t.quantization.zero_point.at(0))};
}

Multiplier quantize(double real) {
  if (real == 0.0) return {0, 0};
  int shift = 0;
  const double q = std::frexp(real, &shift);
  int64_t fixed = static_cast<int64_t>(std::round(q * 2147483648.0));
  if (fixed == (int64_t{1} << 31)) {
    fixed /= 2;
    ++shift;
  }
  if (shift < -31) return {0, 0};
  return {static_cast<int32_t>(fixed), shift};
}

int64_t multiply(int64_t x, Multiplier m) {
  const int64_t shifted = m.shift > 0 ? x * (int64_t{1} << m.shift) : x;
  const int64_t ab = shifted * m.mantissa;
  const int64_t high = ab >= 0 ? (ab + (int64_t{1} << 30)) >> 31
                               : -((-ab + (int64_t{1} << 30) - 1) >> 31);
  const int right = m.shift > 0 ? 0 : -m.shift;
  if (right == 0) return high;
  const int64_t magnitude = (std::llabs(high) + (int64_t{1} << (right - 1))) >> right;
  return high < 0 ? -magnitude : magnitude;
}

namespace {

namespace ref = kernels::ops_testing;


int8_t clamp8(int64_t v, int64_t lo = -128, int64_t hi = 127) {
  return static_cast<int8_t>(std::clamp(v, lo, hi));
}

const std::vector<int8_t>& input(const ir::Graph& g, const ir::Operator& op, size_t k,
                                 const std::vector<std::vector<int8_t>>& values,
                                 std::vector<int8_t>& constant) {
  const ir::Tensor& t = g.tensors[op.inputs[k]];
  if (!t.is_constant) return values[op.inputs[k]];
  constant.assign(t.data.begin(), t.data.end());
  return constant;
}

// QuantizedReluX: input/output ratio in float; clamp at zp + round(0 / s) and zp + round(6 / s).
std::vector<int8_t> relu(const ir::Graph& g, const ir::Operator& op, const std::vector<int8_t>& x,
                         bool relu6) {
  const Q qx = q_of(g.tensors[op.inputs[0]]), qy = q_of(g.tensors[op.outputs[0]]);
  const Multiplier m = quantize(static_cast<double>(qx.scale / qy.scale));
  const int64_t lo = std::max<int64_t>(-128, qy.zero_point + std::lround(0.0f / qy.scale));
  const int64_t hi = relu6 ? std::min<int64_t>(127, qy.zero_point + std::lround(6.0f / qy.scale))
                           : 127;
  std::vector<int8_t> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    out[i] = clamp8(qy.zero_point + multiply(x[i] - qx.zero_point, m), lo, hi);
  }
  return out;
}

// reference_integer_ops::Tanh with TFLM's Prepare: the input in Q4.27 (frexp of scale * 2^27,
// radius floor(15 * 2^27 / 2^shift)), gemmlowp's tanh, rounded to 1/128.
std::vector<int8_t> tanh(const ir::Graph& g, const ir::Operator& op, const std::vector<int8_t>& x) {
  const Q qx = q_of(g.tensors[op.inputs[0]]);
  int shift = 0;
  const double q = std::frexp(static_cast<double>(qx.scale) * (1 << 27), &shift);
  const int64_t multiplier = std::llround(q * 2147483648.0);
  const int64_t radius =
      static_cast<int64_t>(std::floor(15.0 * (1 << 27) / std::ldexp(1.0, shift)));
  std::vector<int8_t> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t v = x[i] - qx.zero_point;
    if (v <= -radius) {
      out[i] = -128;
    } else if (v >= radius) {
      out[i] = 127;
    } else {
      const int64_t x_q4 = ref::RefMultiply(v, static_cast<int32_t>(multiplier), shift);
      int64_t y = 0;
      if (x_q4 != 0) {
        const int64_t t = ref::RefOneMinusXOverOnePlusX(ref::RefExpNegative(-std::llabs(x_q4), 5));
        y = x_q4 > 0 ? t : -t;
      }
      out[i] = clamp8(ref::RoundHalfAwayDivPot(y, 24));
    }
  }
  return out;
}

// BroadcastPrelu4DSlow: both ratios in float; x >= 0 alone, x < 0 times the centred alpha.
std::vector<int8_t> prelu(const ir::Graph& g, const ir::Operator& op, const std::vector<int8_t>& x,
                          const std::vector<int8_t>& alpha) {
  const ir::Tensor &tx = g.tensors[op.inputs[0]], &ta = g.tensors[op.inputs[1]];
  const Q qx = q_of(tx), qa = q_of(ta), qy = q_of(g.tensors[op.outputs[0]]);
  const Multiplier m1 = quantize(static_cast<double>(qx.scale / qy.scale));
  const Multiplier m2 = quantize(static_cast<double>(qx.scale * qa.scale / qy.scale));
  return ref::SlowBroadcast<int8_t, int8_t>(
      static_cast<int>(std::max(tx.shape.size(), ta.shape.size())), tx.shape, ta.shape, x, alpha,
      [&](int8_t v, int8_t a) {
        const int64_t c = v - qx.zero_point;
        return clamp8((c >= 0 ? multiply(c, m1) : multiply(c * (a - qa.zero_point), m2)) +
                      qy.zero_point);
      });
}

// squared_difference.cc for int8: left shift 7, both inputs to twice the larger scale (double),
// the squared difference requantized by (2 max)^2 / (2^14 * output scale).
std::vector<int8_t> squared_difference(const ir::Graph& g, const ir::Operator& op,
                                       const std::vector<int8_t>& a, const std::vector<int8_t>& b) {
  const ir::Tensor &ta = g.tensors[op.inputs[0]], &tb = g.tensors[op.inputs[1]];
  const Q qa = q_of(ta), qb = q_of(tb), qy = q_of(g.tensors[op.outputs[0]]);
  const double twice_max = 2.0 * static_cast<double>(std::max(qa.scale, qb.scale));
  const Multiplier ma = quantize(qa.scale / twice_max), mb = quantize(qb.scale / twice_max);
  const Multiplier my = quantize(twice_max * twice_max / static_cast<double>(16384.0f * qy.scale));
  return ref::SlowBroadcast<int8_t, int8_t>(
      static_cast<int>(std::max(ta.shape.size(), tb.shape.size())), ta.shape, tb.shape, a, b,
      [&](int8_t u, int8_t v) {
        const int64_t d = multiply((u - qa.zero_point) * 128, ma) -
                          multiply((v - qb.zero_point) * 128, mb);
        return clamp8(multiply(d * d, my) + qy.zero_point);
      });
}

// RsqrtEvalQuantized: 1/sqrt(v) by GetInvSqrtQuantizedMultiplierExp, scaled by 2^20, then
// 1 / (sqrt(input scale) * output scale) (sqrt and product in float) with the shift lowered by
// 20. v = 0 gives 127 (TFLite); v < 0, which TFLite refuses to run, 127 too (Mote's rule).
std::vector<int8_t> rsqrt(const ir::Graph& g, const ir::Operator& op,
                          const std::vector<int8_t>& x) {
  const Q qx = q_of(g.tensors[op.inputs[0]]), qy = q_of(g.tensors[op.outputs[0]]);
  const Multiplier m = quantize(1.0 / static_cast<double>(std::sqrt(qx.scale) * qy.scale));
  std::vector<int8_t> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t v = x[i] - qx.zero_point;
    if (v <= 0) {
      out[i] = 127;
      continue;
    }
    int64_t inv = 0;
    int inv_shift = 0;
    ref::RefInvSqrt(v, &inv, &inv_shift);
    const int64_t data = ref::RefMultiply(1, static_cast<int32_t>(inv), inv_shift + 20);
    out[i] = clamp8(ref::RefMultiply(data, m.mantissa, m.shift - 20) + qy.zero_point);
  }
  return out;
}

// LogSoftmax with TFLM's Prepare (PreprocessLogSoftmaxScalingExp, beta 1): the input scale
// times 2^26 as a multiplier (capped at 2^31 - 1), its inverse 2^(31 - shift) / multiplier,
// diff_min = -floor(31 * 2^26 / 2^shift); then the reference row (ops_test_util.h).
std::vector<int8_t> log_softmax(const ir::Graph& g, const ir::Operator& op,
                                const std::vector<int8_t>& x) {
  const ir::Tensor& t = g.tensors[op.inputs[0]];
  const double real = std::min(static_cast<double>(q_of(t).scale) * (1 << 26), 2147483647.0);
  const Multiplier m = quantize(real);
  const Multiplier reverse = quantize(std::ldexp(1.0, 31 - m.shift) / m.mantissa);
  const int64_t diff_min = -static_cast<int64_t>(std::floor(31.0 * (1 << 26) / std::ldexp(1.0, m.shift)));
  const int size = t.shape.back();
  std::vector<int8_t> out;
  for (size_t row = 0; row < x.size(); row += static_cast<size_t>(size)) {
    const std::vector<int8_t> y = ref::RefLogSoftmaxRow(x.data() + row, size, m.mantissa, m.shift,
                                                        reverse.mantissa, -reverse.shift,
                                                        static_cast<int32_t>(diff_min));
    out.insert(out.end(), y.begin(), y.end());
  }
  return out;
}

}  // namespace

bool has_activation_reference(ir::OpType type) {
  switch (type) {
    case ir::OpType::kRelu:
    case ir::OpType::kRelu6:
    case ir::OpType::kTanh:
    case ir::OpType::kPrelu:
    case ir::OpType::kSquaredDifference:
    case ir::OpType::kRsqrt:
    case ir::OpType::kLogSoftmax: return true;
    default: return false;
  }
}

std::vector<int8_t> activation_reference(const ir::Graph& g, const ir::Operator& op,
                                         const std::vector<std::vector<int8_t>>& values) {
  std::vector<int8_t> c0, c1;
  switch (op.type) {
    case ir::OpType::kRelu: return relu(g, op, input(g, op, 0, values, c0), false);
    case ir::OpType::kRelu6: return relu(g, op, input(g, op, 0, values, c0), true);
    case ir::OpType::kTanh: return tanh(g, op, input(g, op, 0, values, c0));
    case ir::OpType::kPrelu:
      return prelu(g, op, input(g, op, 0, values, c0), input(g, op, 1, values, c1));
    case ir::OpType::kSquaredDifference:
      return squared_difference(g, op, input(g, op, 0, values, c0), input(g, op, 1, values, c1));
    case ir::OpType::kRsqrt: return rsqrt(g, op, input(g, op, 0, values, c0));
    case ir::OpType::kLogSoftmax: return log_softmax(g, op, input(g, op, 0, values, c0));
    default: throw std::logic_error("activation_reference: not an activation operator");
  }
}

}  // namespace mote::testing
