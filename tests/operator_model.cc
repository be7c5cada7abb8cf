#include "tests/operator_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "compiler/builder/model_builder.h"
#include "compiler/pipeline/host_run.h"
#include "tests/activation_reference.h"
#include "tests/lstm_reference.h"

namespace mote::testing {
namespace {

using builder::ModelBuilder;
using builder::TensorId;

// --- TFLite's integer arithmetic, from its definitions ------------------------------------------


int8_t clamp8(int64_t v, int64_t lo = -128, int64_t hi = 127) {
  return static_cast<int8_t>(std::clamp(v, lo, hi));
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

// The reductions over input `shape` along `axes`: for every input element, the
// output element it reduces into, and the count per output.
std::vector<size_t> reduced_into(const std::vector<int32_t>& shape,
                                 const std::vector<int32_t>& axes, size_t* outputs,
                                 int64_t* count) {
  std::vector<bool> reduced(shape.size(), false);
  for (int32_t a : axes) reduced[static_cast<size_t>(a)] = true;
  *outputs = 1;
  *count = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (reduced[d]) {
      *count *= shape[d];
    } else {
      *outputs *= static_cast<size_t>(shape[d]);
    }
  }
  std::vector<size_t> into;
  std::vector<int32_t> index(shape.size(), 0);
  size_t total = 1;
  for (int32_t d : shape) total *= static_cast<size_t>(d);
  for (size_t flat = 0; flat < total; ++flat) {
    size_t o = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (!reduced[d]) o = o * static_cast<size_t>(shape[d]) + static_cast<size_t>(index[d]);
    }
    into.push_back(o);
    for (size_t d = shape.size(); d-- > 0 && ++index[d] == shape[d];) index[d] = 0;
  }
  return into;
}

// SUM (TFLite's QuantizedMeanOrSum with compute_sum) and REDUCE_MAX (the largest raw value).
std::vector<int8_t> reduce(const ir::Graph& g, const ir::Operator& op,
                           const std::vector<int8_t>& input) {
  const ir::Tensor& x = g.tensors[op.inputs[0]];
  const ir::Tensor& a = g.tensors[op.inputs[1]];
  std::vector<int32_t> axes;
  for (size_t i = 0; i < a.data.size() / 4; ++i) axes.push_back(int32_at(a, i));
  size_t outputs = 0;
  int64_t count = 0;
  const std::vector<size_t> into = reduced_into(x.shape, axes, &outputs, &count);
  if (op.type == ir::OpType::kReduceMax) {
    std::vector<int8_t> out(outputs, -128);
    for (size_t i = 0; i < input.size(); ++i) out[into[i]] = std::max(out[into[i]], input[i]);
    return out;
  }
  const Q qx = q_of(x), qy = q_of(g.tensors[op.outputs[0]]);
  std::vector<int64_t> sums(outputs, 0);
  for (size_t i = 0; i < input.size(); ++i) sums[into[i]] += input[i];
  const Multiplier m = quantize(static_cast<double>(qx.scale) / static_cast<double>(qy.scale));
  std::vector<int8_t> out;
  for (int64_t sum : sums) {
    out.push_back(clamp8(multiply(sum - qx.zero_point * count, m) + qy.zero_point));
  }
  return out;
}

// ARG_MAX / ARG_MIN: index 0, replaced only by a strictly greater (smaller) value; the int32
// (or int64, as the output's type says) indices' little-endian bytes.
std::vector<int8_t> arg_min_max(const ir::Graph& g, const ir::Operator& op,
                                const std::vector<int8_t>& input) {
  const auto& shape = g.tensors[op.inputs[0]].shape;
  int32_t axis = int32_at(g.tensors[op.inputs[1]], 0);
  if (axis < 0) axis += static_cast<int32_t>(shape.size());
  size_t outer = 1, inner = 1;
  for (int32_t d = 0; d < axis; ++d) outer *= static_cast<size_t>(shape[d]);
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) {
    inner *= static_cast<size_t>(shape[d]);
  }
  const size_t n = static_cast<size_t>(shape[axis]);
  std::vector<int8_t> out;
  for (size_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < inner; ++i) {
      int32_t best = 0;
      for (size_t k = 1; k < n; ++k) {
        const int8_t v = input[(o * n + k) * inner + i], b = input[(o * n + best) * inner + i];
        if (op.type == ir::OpType::kArgMin ? v < b : v > b) best = static_cast<int32_t>(k);
      }
      const int64_t index = best;
      int8_t bytes[8];
      std::memcpy(bytes, &index, 8);
      const bool int64 = g.tensors[op.outputs[0]].type == ir::DataType::kInt64;
      out.insert(out.end(), bytes, bytes + (int64 ? 8 : 4));
    }
  return out;
}

// RESIZE_BILINEAR (TFLite's ResizeBilinearInteger): 10-bit scales and source positions, the
// four neighbours weighted, / 2^20 rounded half away from zero.
std::vector<int8_t> resize_bilinear(const ir::Graph& g, const ir::Operator& op,
                                    const std::vector<int8_t>& input) {
  const auto& o = std::get<ir::ResizeNearestNeighborOptions>(op.options);
  const auto& xs = g.tensors[op.inputs[0]].shape;
  const auto& ys = g.tensors[op.outputs[0]].shape;
  auto scale = [&](int64_t in, int64_t out) {
    return o.align_corners && out > 1 ? (1024 * (in - 1) + (out - 1) / 2) / (out - 1)
                                      : (1024 * in + out / 2) / out;
  };
  const int64_t sh = scale(xs[1], ys[1]), sw = scale(xs[2], ys[2]);
  std::vector<int8_t> out;
  for (int n = 0; n < ys[0]; ++n)
    for (int y = 0; y < ys[1]; ++y)
      for (int x = 0; x < ys[2]; ++x) {
        const int64_t py = o.half_pixel_centers ? y * sh + sh / 2 - 512 : y * sh;
        const int64_t px = o.half_pixel_centers ? x * sw + sw / 2 - 512 : x * sw;
        const int y0 = static_cast<int>(std::max<int64_t>(py / 1024, 0));
        const int x0 = static_cast<int>(std::max<int64_t>(px / 1024, 0));
        const int y1 = static_cast<int>(std::min<int64_t>((py + 1023) / 1024, xs[1] - 1));
        const int x1 = static_cast<int>(std::min<int64_t>((px + 1023) / 1024, xs[2] - 1));
        const int64_t fy = py - 1024 * y0, fx = px - 1024 * x0;
        for (int c = 0; c < ys[3]; ++c) {
          const int64_t v = input[at(xs, n, y0, x0, c)] * (1024 - fy) * (1024 - fx) +
                            input[at(xs, n, y1, x0, c)] * fy * (1024 - fx) +
                            input[at(xs, n, y0, x1, c)] * (1024 - fy) * fx +
                            input[at(xs, n, y1, x1, c)] * fy * fx;
          out.push_back(static_cast<int8_t>((v + (v > 0 ? (1 << 19) : -(1 << 19))) / (1 << 20)));
        }
      }
  return out;
}

// --- data movement (STRIDED_SLICE .. SPACE_TO_DEPTH), index by index ---------------------------

std::vector<int32_t> ints(const ir::Tensor& t) {
  std::vector<int32_t> v(t.data.size() / 4);
  for (size_t i = 0; i < v.size(); ++i) v[i] = int32_at(t, i);
  return v;
}

// Row-major coordinates of element `flat` of `shape`, and back.
std::vector<int32_t> unravel(size_t flat, const std::vector<int32_t>& shape) {
  std::vector<int32_t> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = static_cast<int32_t>(flat % static_cast<size_t>(shape[d]));
    flat /= static_cast<size_t>(shape[d]);
  }
  return c;
}
size_t ravel(const std::vector<int32_t>& c, const std::vector<int32_t>& shape) {
  size_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + c[d];
  return flat;
}

// STRIDED_SLICE without ellipsis or new axes, as TFLite's reference loops: per dimension the
// start and stop of StartForAxis / StopForAxis (masks, negative indices, clamping; a shrunk
// axis reads one index), then every index from start while it has not reached stop.
std::vector<int8_t> strided_slice(const ir::Graph& g, const ir::Operator& op,
                                  const std::vector<int8_t>& input) {
  const auto& o = std::get<ir::StridedSliceOptions>(op.options);
  const auto& shape = g.tensors[op.inputs[0]].shape;
  const auto begin = ints(g.tensors[op.inputs[1]]), end = ints(g.tensors[op.inputs[2]]),
             strides = ints(g.tensors[op.inputs[3]]);
  std::vector<std::vector<int32_t>> picks(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t size = shape[d], s = d < strides.size() ? strides[d] : 1;
    const bool masked_begin = d >= begin.size() || ((o.begin_mask >> d) & 1);
    const bool masked_end = d >= end.size() || ((o.end_mask >> d) & 1);
    auto fix = [&](int64_t v) {
      if (v < 0) v += size;
      return s > 0 ? std::clamp<int64_t>(v, 0, size) : std::clamp<int64_t>(v, -1, size - 1);
    };
    const int64_t start = masked_begin ? (s > 0 ? 0 : size - 1) : fix(begin[d]);
    const int64_t stop = (o.shrink_axis_mask >> d) & 1 ? start + 1
                         : masked_end                   ? (s > 0 ? size : -1)
                                                        : fix(end[d]);
    for (int64_t i = start; s > 0 ? i < stop : i > stop; i += s) {
      picks[d].push_back(static_cast<int32_t>(i));
    }
  }
  std::vector<int32_t> grid(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) grid[d] = static_cast<int32_t>(picks[d].size());
  std::vector<int8_t> out;
  size_t count = 1;
  for (int32_t n : grid) count *= static_cast<size_t>(n);
  for (size_t flat = 0; flat < count; ++flat) {
    std::vector<int32_t> c = unravel(flat, grid);
    for (size_t d = 0; d < c.size(); ++d) c[d] = picks[d][c[d]];
    out.push_back(input[ravel(c, shape)]);
  }
  return out;
}

// SLICE: out[c] = in[c + begin] (size -1: to the end).
std::vector<int8_t> slice(const ir::Graph& g, const ir::Operator& op,
                          const std::vector<int8_t>& input) {
  const auto& shape = g.tensors[op.inputs[0]].shape;
  const auto& out_shape = g.tensors[op.outputs[0]].shape;
  const auto begin = ints(g.tensors[op.inputs[1]]);
  std::vector<int8_t> out(static_cast<size_t>(g.tensors[op.outputs[0]].num_elements()));
  for (size_t flat = 0; flat < out.size(); ++flat) {
    std::vector<int32_t> c = unravel(flat, out_shape);
    for (size_t d = 0; d < c.size(); ++d) c[d] += begin[d];
    out[flat] = input[ravel(c, shape)];
  }
  return out;
}

// SPLIT, SPLIT_V, UNPACK: output j holds the input's coordinates along `axis` from the sum of
// the earlier outputs' sizes (UNPACK: index j, the axis dropped).
std::vector<std::vector<int8_t>> parts(const ir::Graph& g, const ir::Operator& op,
                                       const std::vector<int8_t>& input, size_t data,
                                       int32_t axis, bool keeps_axis) {
  const auto& shape = g.tensors[op.inputs[data]].shape;
  const size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int32_t>(shape.size()) : axis);
  std::vector<std::vector<int8_t>> outs;
  int32_t at_axis = 0;
  for (int32_t t : op.outputs) {
    const auto& out_shape = g.tensors[t].shape;
    std::vector<int8_t> out(static_cast<size_t>(g.tensors[t].num_elements()));
    for (size_t flat = 0; flat < out.size(); ++flat) {
      std::vector<int32_t> c = unravel(flat, out_shape);
      if (keeps_axis) {
        c[a] += at_axis;
      } else {
        c.insert(c.begin() + a, at_axis);
      }
      out[flat] = input[ravel(c, shape)];
    }
    at_axis += keeps_axis ? out_shape[a] : 1;
    outs.push_back(std::move(out));
  }
  return outs;
}

// PACK: out[c] = input c[axis] at c without the axis.
std::vector<int8_t> pack(const ir::Graph& g, const ir::Operator& op,
                         const std::vector<std::vector<int8_t>*>& inputs) {
  const auto& out_shape = g.tensors[op.outputs[0]].shape;
  const auto& in_shape = g.tensors[op.inputs[0]].shape;
  const int32_t axis = std::get<ir::PackOptions>(op.options).axis;
  const size_t a =
      static_cast<size_t>(axis < 0 ? axis + static_cast<int32_t>(out_shape.size()) : axis);
  std::vector<int8_t> out(static_cast<size_t>(g.tensors[op.outputs[0]].num_elements()));
  for (size_t flat = 0; flat < out.size(); ++flat) {
    std::vector<int32_t> c = unravel(flat, out_shape);
    const int32_t k = c[a];
    c.erase(c.begin() + a);
    out[flat] = (*inputs[k])[ravel(c, in_shape)];
  }
  return out;
}

// GATHER: out[outer, idx..., inner] = in[outer, indices[idx...], inner] (batch_dims 0).
std::vector<int8_t> gather(const ir::Graph& g, const ir::Operator& op,
                           const std::vector<int8_t>& input) {
  const auto& shape = g.tensors[op.inputs[0]].shape;
  const ir::Tensor& idx = g.tensors[op.inputs[1]];
  const auto indices = ints(idx);
  const auto& out_shape = g.tensors[op.outputs[0]].shape;
  const int32_t axis = std::get<ir::GatherOptions>(op.options).axis;
  const size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int32_t>(shape.size()) : axis);
  const size_t ri = idx.shape.size();
  std::vector<int8_t> out(static_cast<size_t>(g.tensors[op.outputs[0]].num_elements()));
  for (size_t flat = 0; flat < out.size(); ++flat) {
    const std::vector<int32_t> c = unravel(flat, out_shape);
    std::vector<int32_t> ic(c.begin() + a, c.begin() + a + ri);
    std::vector<int32_t> src(c.begin(), c.begin() + a);
    src.push_back(indices[ravel(ic, idx.shape)]);
    src.insert(src.end(), c.begin() + a + ri, c.end());
    out[flat] = input[ravel(src, shape)];
  }
  return out;
}

// DEPTH_TO_SPACE: out[n][y][x][c] = in[n][y / b][x / b][((y % b) * b + x % b) * C + c];
// SPACE_TO_DEPTH the inverse.
std::vector<int8_t> depth_space(const ir::Graph& g, const ir::Operator& op,
                                const std::vector<int8_t>& input, bool to_space) {
  const int32_t b = std::get<ir::BlockSizeOptions>(op.options).block_size;
  const auto& xs = g.tensors[op.inputs[0]].shape;
  const auto& ys = g.tensors[op.outputs[0]].shape;
  std::vector<int8_t> out(static_cast<size_t>(g.tensors[op.outputs[0]].num_elements()));
  for (int n = 0; n < ys[0]; ++n)
    for (int y = 0; y < ys[1]; ++y)
      for (int x = 0; x < ys[2]; ++x)
        for (int c = 0; c < ys[3]; ++c) {
          size_t src;
          if (to_space) {
            src = at(xs, n, y / b, x / b, ((y % b) * b + x % b) * ys[3] + c);
          } else {
            const int block = c / xs[3], ci = c % xs[3];
            src = at(xs, n, y * b + block / b, x * b + block % b, ci);
          }
          out[at(ys, n, y, x, c)] = input[src];
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
  // RELU, RELU6, TANH, PRELU (a per-channel constant alpha), SQUARED_DIFFERENCE (broadcasting the
  // pooled [1,1,1,4]) and RSQRT, on the convolution's and the leaky ReLU's outputs.
  const TensorId r = b.add_operator(ir::OpType::kRelu, {t}, std::monostate{}, shape,
                                    t_scale * 0.5f, -128);
  const TensorId r6 = b.add_operator(ir::OpType::kRelu6, {l}, std::monostate{}, shape,
                                     l_scale * 0.7f, -100);
  const TensorId th = b.add_operator(ir::OpType::kTanh, {l}, std::monostate{}, shape,
                                     1.0f / 128, 0);
  const TensorId alpha = b.add_int8_constant({4}, {-30, 12, 64, 127}, 1.0f / 128, 0);
  const TensorId pr = b.add_operator(ir::OpType::kPrelu, {t, alpha}, std::monostate{}, shape,
                                     t_scale * 0.8f, 10);
  const TensorId sd = b.add_operator(ir::OpType::kSquaredDifference, {l, p}, std::monostate{},
                                     shape, l_scale * l_scale * 40.0f, -128);
  const TensorId rs = b.add_operator(ir::OpType::kRsqrt, {r}, std::monostate{}, shape,
                                     1.0f / (std::sqrt(t_scale * 0.5f) * 100.0f), -128);
  // LOG_SOFTMAX over the leaky ReLU's channels (rows of 4).
  const TensorId ls = b.add_operator(ir::OpType::kLogSoftmax, {l}, std::monostate{}, shape,
                                     16.0f / 256, 127);
  for (const TensorId y : {r, r6, th, pr, sd, rs, ls}) b.mark_output(y);
  // The field models' reductions and resize: SUM, REDUCE_MAX, ARG_MAX, ARG_MIN, RESIZE_BILINEAR.
  const TensorId su = b.add_sum(l, {1}, false, l_scale * 4.0f, 5);  // [1,8,4]
  b.mark_output(su);
  b.mark_output(b.add_reduce_max(l, {2}, true));               // [1,8,1,4]
  b.mark_output(b.add_arg_min_max(l, 3));                      // [1,8,8] int32
  b.mark_output(b.add_arg_min_max(l, 1, true));                // [1,8,4] int32
  b.mark_output(b.add_arg_min_max(l, 2, false, ir::DataType::kInt64));  // [1,8,4] int64
  b.mark_output(b.add_resize_bilinear(x, 7, 9, false, true));  // [1,7,9,3]
  // The data-movement operators on MINIMUM's [1,8,8,4] result.
  ir::StridedSliceOptions masks;
  masks.end_mask = 8;          // channels to the end
  masks.shrink_axis_mask = 1;  // the batch dropped
  const TensorId ss = b.add_strided_slice(mn, {0, 7, 1, 0}, {1, 0, 8, 0}, {1, -2, 3, 1}, masks);
  const TensorId sl = b.add_slice(mn, {0, 1, 2, 1}, {1, -1, 4, 2});  // [1,7,4,2]
  const std::vector<TensorId> halves = b.add_split(mn, -1, 2);      // 2 x [1,8,8,2]
  const std::vector<TensorId> rows = b.add_split_v(sl, {3, -1}, 1);  // [1,3,4,2], [1,4,4,2]
  const TensorId pk = b.add_pack(halves, -2);                        // [1,8,8,2,2]
  const std::vector<TensorId> columns = b.add_unpack(ss, 1);         // 3 x [4,4]
  const TensorId ga = b.add_gather(mn, {3, 0, 0, 6}, {2, 2}, 2);     // [1,8,2,2,4]
  const TensorId ds = b.add_depth_to_space(mn, 2);                   // [1,16,16,1]
  const TensorId s2d = b.add_space_to_depth(mn, 2);                  // [1,4,4,16]
  for (TensorId t : {ss, sl, halves[1], rows[0], rows[1], pk}) b.mark_output(t);
  for (TensorId t : columns) b.mark_output(t);
  for (TensorId t : {ga, ds, s2d}) b.mark_output(t);
  b.mark_output(bw);
  b.mark_output(ba);
  // UNIDIRECTIONAL_SEQUENCE_LSTM over SUM's [1,8,4] as 8 steps of 4 features, from TFLite's
  // initial state: [1,8,6].
  b.mark_output(b.add_lstm(su, 6));
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
    auto set_outputs = [&](std::vector<std::vector<int8_t>> outs) {
      for (size_t j = 0; j < outs.size(); ++j) values[op.outputs[j]] = std::move(outs[j]);
    };
    switch (op.type) {
      case ir::OpType::kStridedSlice: out = strided_slice(g, op, in(0)); break;
      case ir::OpType::kSlice: out = slice(g, op, in(0)); break;
      case ir::OpType::kSplit:
        set_outputs(parts(g, op, in(1), 1, ints(g.tensors[op.inputs[0]]).at(0), true));
        break;
      case ir::OpType::kSplitV:
        set_outputs(parts(g, op, in(0), 0, ints(g.tensors[op.inputs[2]]).at(0), true));
        break;
      case ir::OpType::kUnpack:
        set_outputs(parts(g, op, in(0), 0, std::get<ir::UnpackOptions>(op.options).axis, false));
        break;
      case ir::OpType::kPack: {
        std::vector<std::vector<int8_t>*> inputs;
        for (int32_t t : op.inputs) inputs.push_back(&values[t]);
        out = pack(g, op, inputs);
        break;
      }
      case ir::OpType::kGather: out = gather(g, op, in(0)); break;
      case ir::OpType::kDepthToSpace: out = depth_space(g, op, in(0), true); break;
      case ir::OpType::kSpaceToDepth: out = depth_space(g, op, in(0), false); break;
      case ir::OpType::kTransposeConv: out = transpose_conv(g, op, in(2)); break;
      case ir::OpType::kLeakyRelu: out = leaky_relu(g, op, in(0)); break;
      case ir::OpType::kAveragePool2D: out = global_average(g, op, in(0)); break;
      case ir::OpType::kSub: out = sub_relu(g, op, in(0), in(1)); break;
      case ir::OpType::kMaximum: out = extremum(g, op, in(0), in(1), true); break;
      case ir::OpType::kMinimum: out = extremum(g, op, in(0), in(1), false); break;
      case ir::OpType::kSum:
      case ir::OpType::kReduceMax: out = reduce(g, op, in(0)); break;
      case ir::OpType::kArgMax:
      case ir::OpType::kArgMin: out = arg_min_max(g, op, in(0)); break;
      case ir::OpType::kResizeBilinear: out = resize_bilinear(g, op, in(0)); break;
      case ir::OpType::kUnidirectionalSequenceLstm: {
        LstmState state = lstm_initial_state(g, op);
        out = lstm_reference(g, op, in(0), state);
        break;
      }
      case ir::OpType::kBatchMatMul:
        out = batch_matmul(g, op, in(0),
                           g.tensors[op.inputs[1]].is_constant ? constant(g, op.inputs[1]) : in(1));
        break;
      default:
        if (!testing::has_activation_reference(op.type)) {
          throw std::logic_error("operator_model_reference: no reference for this operator");
        }
        out = testing::activation_reference(g, op, values);
    }
  }
  std::vector<uint8_t> outputs;
  for (int32_t t : g.outputs) outputs.insert(outputs.end(), values[t].begin(), values[t].end());
  return outputs;
}

}  // namespace mote::testing
