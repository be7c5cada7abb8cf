#include "tests/operator_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "compiler/builder/model_builder.h"
#include "compiler/pipeline/host_run.h"

namespace mote::testing {
namespace {

using builder::ModelBuilder;
using builder::TensorId;

// --- TFLite's integer arithmetic, from its definitions ------------------------------------------

struct Multiplier {
  int32_t mantissa;
  int shift;
};

// QuantizeMultiplier: frexp, a Q31 mantissa, renormalised when rounding reaches 2^31.
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

// MultiplyByQuantizedMultiplier: a saturating rounding doubling high multiply, then a rounding
// right shift (halves away from zero).
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

int8_t clamp8(int64_t v, int64_t lo = -128, int64_t hi = 127) {
  return static_cast<int8_t>(std::clamp(v, lo, hi));
}

struct Q {
  float scale;
  int32_t zero_point;
};
Q q_of(const ir::Tensor& t) {
  return {t.quantization.scale.at(0), static_cast<int32_t>(t.quantization.zero_point.at(0))};
}

std::vector<int8_t> constant(const ir::Graph& g, int32_t index) {
  const std::vector<uint8_t>& data = g.tensors[index].data;
  return std::vector<int8_t>(data.begin(), data.end());
}

int32_t int32_at(const ir::Tensor& t, size_t i) {
  int32_t v;
  std::memcpy(&v, t.data.data() + 4 * i, 4);
  return v;
}

// NHWC index of [n, y, x, c] in a tensor of `shape`.
size_t at(const std::vector<int32_t>& shape, int n, int y, int x, int c) {
  return ((static_cast<size_t>(n) * shape[1] + y) * shape[2] + x) * shape[3] + c;
}

// The element of a broadcast operand for output position [n, y, x, c].
int8_t broadcast_at(const std::vector<int8_t>& v, const std::vector<int32_t>& shape, int n, int y,
                    int x, int c) {
  return v[at(shape, shape[0] == 1 ? 0 : n, shape[1] == 1 ? 0 : y, shape[2] == 1 ? 0 : x,
              shape[3] == 1 ? 0 : c)];
}

// --- the operators ------------------------------------------------------------------------------

// TRANSPOSE_CONV (TFLite's reference TransposeConv): each input pixel scattered through the
// filter into int32 sums, then the bias and a per-channel requantization.
std::vector<int8_t> transpose_conv(const ir::Graph& g, const ir::Operator& op,
                                   const std::vector<int8_t>& input) {
  const auto& o = std::get<ir::TransposeConvOptions>(op.options);
  const ir::Tensor& w = g.tensors[op.inputs[1]];
  const ir::Tensor& x = g.tensors[op.inputs[2]];
  const ir::Tensor& y = g.tensors[op.outputs[0]];
  const int kh = w.shape[1], kw = w.shape[2], co = w.shape[0], ci = w.shape[3];
  // Padding as TFLite computes it: the forward convolution from the output back to the input.
  auto pad = [&](int out, int k, int stride) {
    if (o.padding == ir::Padding::kValid) return 0;
    const int steps = (out + stride - 1) / stride;
    return std::max((steps - 1) * stride + k - out, 0) / 2;
  };
  const int pad_h = pad(y.shape[1], kh, o.stride_h), pad_w = pad(y.shape[2], kw, o.stride_w);
  const Q qx = q_of(x), qy = q_of(y);
  std::vector<int64_t> acc(static_cast<size_t>(y.num_elements()), 0);
  for (int n = 0; n < x.shape[0]; ++n)
    for (int iy = 0; iy < x.shape[1]; ++iy)
      for (int ix = 0; ix < x.shape[2]; ++ix)
        for (int ky = 0; ky < kh; ++ky)
          for (int kx = 0; kx < kw; ++kx) {
            const int oy = iy * o.stride_h - pad_h + ky, ox = ix * o.stride_w - pad_w + kx;
            if (oy < 0 || oy >= y.shape[1] || ox < 0 || ox >= y.shape[2]) continue;
            for (int oc = 0; oc < co; ++oc)
              for (int ic = 0; ic < ci; ++ic) {
                const int64_t xv = input[at(x.shape, n, iy, ix, ic)] - qx.zero_point;
                const int64_t wv = static_cast<int8_t>(w.data[at(w.shape, oc, ky, kx, ic)]);
                acc[at(y.shape, n, oy, ox, oc)] += xv * wv;
              }
          }
  std::vector<int8_t> out(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) {
    const int oc = static_cast<int>(i % co);
    const double real = static_cast<double>(qx.scale) *
                        static_cast<double>(w.quantization.scale[oc]) /
                        static_cast<double>(qy.scale);
    const int64_t bias = op.inputs.size() > 3 ? int32_at(g.tensors[op.inputs[3]], oc) : 0;
    out[i] = clamp8(multiply(acc[i] + bias, quantize(real)) + qy.zero_point);
  }
  return out;
}

// LEAKY_RELU: TFLite forms both ratios in float, then QuantizeMultiplier.
std::vector<int8_t> leaky_relu(const ir::Graph& g, const ir::Operator& op,
                               const std::vector<int8_t>& input) {
  const float alpha = std::get<ir::LeakyReluOptions>(op.options).alpha;
  const Q qx = q_of(g.tensors[op.inputs[0]]), qy = q_of(g.tensors[op.outputs[0]]);
  const Multiplier identity = quantize(static_cast<double>(qx.scale / qy.scale));
  const Multiplier scaled_alpha = quantize(static_cast<double>(qx.scale * alpha / qy.scale));
  std::vector<int8_t> out(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    const int64_t v = input[i] - qx.zero_point;
    out[i] = clamp8(multiply(v, v >= 0 ? identity : scaled_alpha) + qy.zero_point);
  }
  return out;
}

// AVERAGE_POOL_2D over the whole image (VALID, one window): the rounded mean of the raw values.
std::vector<int8_t> global_average(const ir::Graph& g, const ir::Operator& op,
                                   const std::vector<int8_t>& input) {
  const auto& shape = g.tensors[op.inputs[0]].shape;
  const int64_t count = int64_t{shape[1]} * shape[2];
  std::vector<int8_t> out(static_cast<size_t>(shape[0] * shape[3]));
  for (int n = 0; n < shape[0]; ++n)
    for (int c = 0; c < shape[3]; ++c) {
      int64_t sum = 0;
      for (int y = 0; y < shape[1]; ++y)
        for (int x = 0; x < shape[2]; ++x) sum += input[at(shape, n, y, x, c)];
      const int64_t mean = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
      out[static_cast<size_t>(n * shape[3] + c)] = clamp8(mean);
    }
  return out;
}

// SUB with a fused ReLU and broadcasting of the second operand: TFLite's Prepare (both inputs
// to twice the larger scale with 20 bits of headroom), then SubElementwise.
std::vector<int8_t> sub_relu(const ir::Graph& g, const ir::Operator& op,
                             const std::vector<int8_t>& a, const std::vector<int8_t>& b) {
  const ir::Tensor& ta = g.tensors[op.inputs[0]];
  const ir::Tensor& tb = g.tensors[op.inputs[1]];
  const ir::Tensor& ty = g.tensors[op.outputs[0]];
  const Q qa = q_of(ta), qb = q_of(tb), qy = q_of(ty);
  const double twice_max = 2.0 * std::max(qa.scale, qb.scale);
  const Multiplier ma = quantize(qa.scale / twice_max), mb = quantize(qb.scale / twice_max);
  const Multiplier my = quantize(twice_max / (double{1 << 20} * qy.scale));
  // ReLU: real 0 and up, in the output's quantized domain.
  const int64_t relu_min = std::max<int64_t>(-128, qy.zero_point);
  std::vector<int8_t> out(a.size());
  for (int n = 0; n < ty.shape[0]; ++n)
    for (int y = 0; y < ty.shape[1]; ++y)
      for (int x = 0; x < ty.shape[2]; ++x)
        for (int c = 0; c < ty.shape[3]; ++c) {
          const int64_t sa = multiply((a[at(ty.shape, n, y, x, c)] - qa.zero_point) << 20, ma);
          const int64_t sb = multiply((broadcast_at(b, tb.shape, n, y, x, c) - qb.zero_point) << 20, mb);
          out[at(ty.shape, n, y, x, c)] = clamp8(multiply(sa - sb, my) + qy.zero_point, relu_min);
        }
  return out;
}

// MAXIMUM / MINIMUM: TFLite compares the raw int8 values.
std::vector<int8_t> extremum(const ir::Graph& g, const ir::Operator& op,
                             const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                             bool maximum) {
  const auto& shape_y = g.tensors[op.outputs[0]].shape;
  const auto& shape_b = g.tensors[op.inputs[1]].shape;
  std::vector<int8_t> out(a.size());
  for (int n = 0; n < shape_y[0]; ++n)
    for (int y = 0; y < shape_y[1]; ++y)
      for (int x = 0; x < shape_y[2]; ++x)
        for (int c = 0; c < shape_y[3]; ++c) {
          const size_t i = at(shape_y, n, y, x, c);
          const int8_t vb = broadcast_at(b, shape_b, n, y, x, c);
          out[i] = maximum ? std::max(a[i], vb) : std::min(a[i], vb);
        }
  return out;
}

// BATCH_MATMUL (TFLite's reference BatchMatMul) of two 4-D operands of batch [1, 8]: `lhs`
// [1,8,8,d] times `rhs` [1,8,d,c] (or, adj_y, [1 or 8,8,c,d]); a batch of 1 broadcasts. The
// multiplier is lhs_scale * rhs_scale / output_scale in double, the clamp the int8 range.
std::vector<int8_t> batch_matmul(const ir::Graph& g, const ir::Operator& op,
                                 const std::vector<int8_t>& a, const std::vector<int8_t>& b) {
  const bool adj_y = std::get<ir::BatchMatMulOptions>(op.options).adj_y;
  const ir::Tensor &ta = g.tensors[op.inputs[0]], &tb = g.tensors[op.inputs[1]];
  const ir::Tensor& ty = g.tensors[op.outputs[0]];
  const Q qa = q_of(ta), qb = q_of(tb), qy = q_of(ty);
  const Multiplier m = quantize(double{qa.scale} * double{qb.scale} / double{qy.scale});
  const int depth = ta.shape[3], cols = ty.shape[3];
  std::vector<int8_t> out(static_cast<size_t>(ty.num_elements()));
  for (int h = 0; h < ty.shape[1]; ++h)
    for (int r = 0; r < ty.shape[2]; ++r)
      for (int c = 0; c < cols; ++c) {
        int64_t acc = 0;
        for (int k = 0; k < depth; ++k) {
          const int hb = tb.shape[1] == 1 ? 0 : h;
          const int8_t vb = adj_y ? b[at(tb.shape, 0, hb, c, k)] : b[at(tb.shape, 0, hb, k, c)];
          acc += int64_t{a[at(ta.shape, 0, h, r, k)] - qa.zero_point} * (vb - qb.zero_point);
        }
        out[at(ty.shape, 0, h, r, c)] = clamp8(multiply(acc, m) + qy.zero_point);
      }
  return out;
}

}  // namespace

ir::Graph operator_model() {
  ModelBuilder b(7);
  const TensorId x = b.add_input({1, 4, 4, 3}, ir::DataType::kInt8, 0.05f, -3);
  const TensorId t = b.add_transpose_conv(x, 4, 3, 3, 2);  // [1,8,8,4]
  const ir::Tensor& tt = b.tensor(t);
  const std::vector<int32_t> shape = tt.shape;
  const float t_scale = tt.quantization.scale[0];
  // A little finer than the convolution's scale, with most codes for the positive side.
  const TensorId l = b.add_operator(ir::OpType::kLeakyRelu, {t}, ir::LeakyReluOptions{0.2f}, shape,
                                    t_scale * 0.7f, -80);
  const TensorId p = b.add_average_pool(l, 8, 8, 1);  // [1,1,1,4]
  const ir::Tensor& tl = b.tensor(l);
  const float l_scale = tl.quantization.scale[0];
  const TensorId d = b.add_operator(ir::OpType::kSub, {l, p},
                                    ir::ElementwiseOptions{ir::Activation::kRelu}, shape,
                                    l_scale * 0.6f, -128);
  const TensorId mx = b.add_operator(ir::OpType::kMaximum, {d, l}, std::monostate{}, shape,
                                     l_scale * 0.6f, -128);
  const TensorId mn = b.add_operator(ir::OpType::kMinimum, {mx, p}, std::monostate{}, shape,
                                     l_scale * 0.6f, -128);
  // BATCH_MATMUL with constant weights [1,1,4,6] (broadcast over the batch of 8 rows) and with
  // an activation rhs read transposed (adj_y): [1,8,8,4] x [1,8,8,4]^T.
  std::vector<int8_t> weights(4 * 6);
  builder::Random random(3);
  for (int8_t& w : weights) w = static_cast<int8_t>(random.between(-127, 127));
  const TensorId w = b.add_int8_constant({1, 1, 4, 6}, weights, 0.01f, 2);
  const TensorId bw = b.add_batch_matmul(mn, w);
  // The products of these small, mostly positive values need a finer scale than the builder's
  // estimate: about 150 accumulator units per output step.
  const float d_scale = b.tensor(d).quantization.scale[0];
  const TensorId ba = b.add_operator(ir::OpType::kBatchMatMul, {l, d},
                                     ir::BatchMatMulOptions{false, true}, {1, 8, 8, 8},
                                     l_scale * d_scale * 150.0f, -20);
  // Every result is an output, so no operator's error can hide behind another's.
  b.mark_output(d);
  b.mark_output(mx);
  b.mark_output(mn);
  b.mark_output(bw);
  b.mark_output(ba);
  return b.build();
}

std::vector<uint8_t> operator_model_input(const ir::Graph& graph) {
  std::vector<uint8_t> input(static_cast<size_t>(graph.tensors[graph.inputs[0]].num_bytes()));
  pipeline::DefaultInput().fill(input);
  return input;
}

std::vector<uint8_t> operator_model_reference(const ir::Graph& g,
                                              const std::vector<uint8_t>& input) {
  std::vector<std::vector<int8_t>> values(g.tensors.size());
  values[g.inputs[0]] = std::vector<int8_t>(input.begin(), input.end());
  for (const ir::Operator& op : g.operators) {
    auto in = [&](size_t k) -> const std::vector<int8_t>& { return values[op.inputs[k]]; };
    std::vector<int8_t>& out = values[op.outputs[0]];
    switch (op.type) {
      case ir::OpType::kTransposeConv: out = transpose_conv(g, op, in(2)); break;
      case ir::OpType::kLeakyRelu: out = leaky_relu(g, op, in(0)); break;
      case ir::OpType::kAveragePool2D: out = global_average(g, op, in(0)); break;
      case ir::OpType::kSub: out = sub_relu(g, op, in(0), in(1)); break;
      case ir::OpType::kMaximum: out = extremum(g, op, in(0), in(1), true); break;
      case ir::OpType::kMinimum: out = extremum(g, op, in(0), in(1), false); break;
      case ir::OpType::kBatchMatMul:
        out = batch_matmul(g, op, in(0),
                           g.tensors[op.inputs[1]].is_constant ? constant(g, op.inputs[1]) : in(1));
        break;
      default: throw std::logic_error("operator_model_reference: no reference for this operator");
    }
  }
  std::vector<uint8_t> outputs;
  for (int32_t t : g.outputs) outputs.insert(outputs.end(), values[t].begin(), values[t].end());
  return outputs;
}

}  // namespace mote::testing
