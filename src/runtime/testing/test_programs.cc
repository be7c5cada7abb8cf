#include "runtime/testing/test_programs.h"

#include <algorithm>

#include "compiler/emit/emit.h"
#include "compiler/emit/kernel_options.h"
#include "mote/kernels/add.h"
#include "mote/kernels/concatenation.h"
#include "mote/kernels/fully_connected.h"
#include "mote/kernels/hard_swish.h"
#include "mote/kernels/logistic.h"
#include "mote/kernels/mean.h"
#include "mote/kernels/mul.h"
#include "mote/kernels/quantization.h"
#include "mote/kernels/quantize.h"
#include "mote/kernels/scratch.h"
#include "mote/kernels/softmax.h"

namespace mote::runtime::testing {

namespace {

constexpr int kH = 5, kW = 5, kCi = 2, kCo = 4, kK = 3;
constexpr float kConstScale = 0.4f;
constexpr int32_t kConstZeroPoint = 1;
const std::vector<int8_t> kAddConstant = {-5, 0, 7, 100};

int8_t weight(int o, int ky, int kx, int c) {
  return static_cast<int8_t>((o * 7 + ky * 5 + kx * 3 + c * 11) % 17 - 8);
}
int32_t bias(int o) { return (o - 1) * 100; }
float weight_scale(int o) { return 0.01f * static_cast<float>(o + 1); }

}  // namespace

std::vector<uint8_t> pack_unchecked(const schema::ProgramT& program, bool force_defaults) {
  flatbuffers::FlatBufferBuilder builder;
  builder.ForceDefaults(force_defaults);
  builder.Finish(schema::Program::Pack(builder, &program), schema::ProgramIdentifier());
  return {builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize()};
}

Loaded load(std::span<const uint8_t> bytes) {
  Loaded result{emit::AlignedBuffer(bytes), Error::kInternal, {}};
  result.program = Program::load(result.bytes.data(), result.bytes.size(), &result.diagnostic);
  return result;
}

schema::ProgramT conv_add_program(const ConvAddParams& p) {
  using schema::DataType;
  emit::ProgramBuilder b("cortex-m3", schema::Extension::Scalar);
  const int32_t x = b.add_arena_tensor("x", DataType::Int8, {1, kH, kW, kCi}, 0, p.input_scale,
                                       p.input_zero_point);
  std::vector<int8_t> w;
  for (int o = 0; o < kCo; ++o)
    for (int ky = 0; ky < kK; ++ky)
      for (int kx = 0; kx < kK; ++kx)
        for (int c = 0; c < kCi; ++c) w.push_back(weight(o, ky, kx, c));
  const int32_t filter = b.add_constant_tensor("w", DataType::Int8, {kCo, kK, kK, kCi}, w);
  std::vector<int32_t> bias_values;
  for (int o = 0; o < kCo; ++o) bias_values.push_back(bias(o));
  const int32_t bias_t = b.add_constant_tensor("b", DataType::Int32, {kCo}, bias_values);
  const int32_t y = b.add_arena_tensor("y", DataType::Int8, {1, kH, kW, kCo}, 64, p.conv_scale,
                                       p.conv_zero_point);
  const int32_t c = b.add_constant_tensor("c", DataType::Int8, {kCo}, kAddConstant, kConstScale,
                                          kConstZeroPoint);
  const int32_t z = b.add_arena_tensor("z", DataType::Int8, {1, kH, kW, kCo}, 176, p.output_scale,
                                       p.output_zero_point);
  const int32_t out = b.add_arena_tensor("out", DataType::Int8, {1, kH * kW * kCo}, 176,
                                         p.output_scale, p.output_zero_point);
  b.tensor(out).alias = z;

  std::vector<int32_t> multipliers, shifts;
  for (int o = 0; o < kCo; ++o) {
    const auto q = kernels::quantize_multiplier(static_cast<double>(p.input_scale) *
                                                weight_scale(o) / p.conv_scale);
    multipliers.push_back(q.multiplier);
    shifts.push_back(q.shift);
  }
  schema::OpOptionsUnion conv_options;
  auto conv = std::make_unique<schema::ConvOptionsT>();
  conv->pad_h = conv->pad_w = 1;
  conv->input_offset = -p.input_zero_point;
  conv->output_offset = p.conv_zero_point;
  conv->multipliers = std::make_unique<schema::Region>(b.add_constant_array(multipliers));
  conv->shifts = std::make_unique<schema::Region>(b.add_constant_array(shifts));
  conv_options.Set(std::move(*conv));
  b.add_operator(schema::OpKind::Conv2D, {x, filter, bias_t}, {y}, std::move(conv_options),
                 schema::Region(176, 80));

  const kernels::AddParams ap =
      kernels::prepare_add(p.conv_scale, p.conv_zero_point, kConstScale, kConstZeroPoint,
                           p.output_scale, p.output_zero_point, -128, 127);
  schema::AddOptionsT add = emit::program_options(ap);
  add.activation_min = -128;
  add.activation_max = 127;
  schema::OpOptionsUnion add_options;
  add_options.Set(std::move(add));
  b.add_operator(schema::OpKind::Add, {y, c}, {z}, std::move(add_options));
  b.add_operator(schema::OpKind::Reshape, {z}, {out});

  b.set_graph_io({x}, {out});
  b.set_arena(288);
  b.set_plan("test", 240, 208, 80, false);
  b.derive_lifetimes();
  return b.take_program();
}

void make_input_external(schema::ProgramT& program) {
  schema::TensorT& t = *program.tensors[static_cast<size_t>(program.inputs[0])];
  t.location = schema::Location::External;
  t.offset = 0;
  t.first_step = 0;
  t.last_step = 0;
}

std::vector<int8_t> conv_add_expected(const std::vector<int8_t>& input, const ConvAddParams& p) {
  // Convolution: plain loops over the padded window.
  std::vector<int32_t> conv(kH * kW * kCo);
  for (int y = 0; y < kH; ++y) {
    for (int x = 0; x < kW; ++x) {
      for (int o = 0; o < kCo; ++o) {
        int64_t acc = bias(o);
        for (int ky = 0; ky < kK; ++ky) {
          for (int kx = 0; kx < kK; ++kx) {
            const int iy = y + ky - 1, ix = x + kx - 1;
            if (iy < 0 || iy >= kH || ix < 0 || ix >= kW) continue;
            for (int c = 0; c < kCi; ++c) {
              acc += (input[(iy * kW + ix) * kCi + c] - p.input_zero_point) *
                     int64_t{weight(o, ky, kx, c)};
            }
          }
        }
        const auto q = kernels::quantize_multiplier(static_cast<double>(p.input_scale) *
                                                    weight_scale(o) / p.conv_scale);
        int32_t v = kernels::multiply_by_quantized_multiplier(static_cast<int32_t>(acc),
                                                              q.multiplier, q.shift);
        v = std::clamp(v + p.conv_zero_point, -128, 127);
        conv[(y * kW + x) * kCo + o] = v;
      }
    }
  }
  // Add, TFLite's int8 formula with left shift 20.
  const double twice_max = 2.0 * std::max(p.conv_scale, kConstScale);
  const auto m1 = kernels::quantize_multiplier(p.conv_scale / twice_max);
  const auto m2 = kernels::quantize_multiplier(kConstScale / twice_max);
  const auto mo = kernels::quantize_multiplier(twice_max / ((1 << 20) * double{p.output_scale}));
  std::vector<int8_t> out(conv.size());
  for (size_t i = 0; i < conv.size(); ++i) {
    const int32_t a = (conv[i] - p.conv_zero_point) * (1 << 20);
    const int32_t b = (kAddConstant[i % kCo] - kConstZeroPoint) * (1 << 20);
    const int32_t sa = kernels::multiply_by_quantized_multiplier(a, m1.multiplier, m1.shift);
    const int32_t sb = kernels::multiply_by_quantized_multiplier(b, m2.multiplier, m2.shift);
    const int32_t v =
        kernels::multiply_by_quantized_multiplier(sa + sb, mo.multiplier, mo.shift) +
        p.output_zero_point;
    out[i] = static_cast<int8_t>(std::clamp(v, -128, 127));
  }
  return out;
}

namespace {

template <typename T>
schema::OpOptionsUnion union_of(T value) {
  schema::OpOptionsUnion u;
  u.Set(std::move(value));
  return u;
}

std::vector<int8_t> small_weights(size_t n, int seed) {
  std::vector<int8_t> w(n);
  for (size_t i = 0; i < n; ++i) w[i] = static_cast<int8_t>((i * 37 + seed * 11) % 41 - 20);
  return w;
}

struct Requants {
  std::vector<int32_t> multipliers, shifts;
};
Requants per_channel(int channels, double real) {
  Requants r;
  for (int c = 0; c < channels; ++c) {
    const auto q = kernels::quantize_multiplier(real * (1.0 + 0.1 * c));
    r.multipliers.push_back(q.multiplier);
    r.shifts.push_back(q.shift);
  }
  return r;
}

}  // namespace

schema::ProgramT kitchen_sink_program() {
  using schema::DataType;
  using schema::OpKind;
  emit::ProgramBuilder b("cortex-m3", schema::Extension::Scalar);
  uint32_t next = 0;
  auto arena = [&](const char* name, DataType type, std::vector<int32_t> shape, float scale,
                   int32_t zero_point) {
    const int32_t t = b.add_arena_tensor(name, type, std::move(shape), next, scale, zero_point);
    next += (b.tensor(t).size + 15) / 16 * 16;
    return t;
  };
  auto region = [&](const std::vector<int32_t>& v) {
    return std::make_unique<schema::Region>(b.add_constant_array(v));
  };
  auto scratch = [&](size_t bytes) -> std::optional<schema::Region> {
    if (bytes == 0) return std::nullopt;
    const schema::Region r(next, static_cast<uint32_t>(bytes));
    next += static_cast<uint32_t>((bytes + 15) / 16 * 16);
    return r;
  };
  const float s = 0.05f;  // most int8 tensors share this scale

  const int32_t x = arena("x", DataType::Float32, {1, 4, 4, 2}, 0, 0);
  const int32_t a = arena("a", DataType::Int8, {1, 4, 4, 2}, s, -3);
  b.add_operator(OpKind::Quantize, {x}, {a}, union_of(schema::QuantizeOptionsT{}));

  // Depthwise 3x3, multiplier 2, pad 1, bias.
  const int32_t dw_w = b.add_constant_tensor("dw_w", DataType::Int8, {1, 3, 3, 4},
                                             small_weights(36, 1));
  const int32_t dw_b = b.add_constant_tensor("dw_b", DataType::Int32, {4},
                                             std::vector<int32_t>{10, -20, 30, -40});
  const int32_t bq = arena("b", DataType::Int8, {1, 4, 4, 4}, s, 2);
  {
    schema::DepthwiseConvOptionsT o;
    o.pad_h = o.pad_w = 1;
    o.depth_multiplier = 2;
    o.input_offset = 3;
    o.output_offset = 2;
    const Requants r = per_channel(4, 0.02);
    o.multipliers = region(r.multipliers);
    o.shifts = region(r.shifts);
    b.add_operator(OpKind::DepthwiseConv2D, {a, dw_w, dw_b}, {bq}, union_of(std::move(o)));
  }
  const int32_t c = arena("c", DataType::Int8, {1, 4, 4, 4}, s, -1);
  {
    const kernels::HardSwishParams p = kernels::prepare_hard_swish(s, 2, s, -1);
    schema::HardSwishOptionsT o = emit::program_options(p);
    b.add_operator(OpKind::HardSwish, {bq}, {c}, union_of(o));
  }
  const int32_t e = arena("e", DataType::Int8, {1, 5, 5, 4}, s, -1);
  {
    schema::PadOptionsT o;
    o.before = {0, 0, 0, 0};
    o.after = {0, 1, 1, 0};
    o.pad_value = -1;
    b.add_operator(OpKind::Pad, {c}, {e}, union_of(o));
  }
  const int32_t g = arena("g", DataType::Int8, {1, 2, 2, 4}, s, -1);
  {
    schema::PoolOptionsT o;
    o.filter_h = o.filter_w = 3;
    o.stride_h = o.stride_w = 2;
    b.add_operator(OpKind::AveragePool2D, {e}, {g}, union_of(o),
                   scratch(kernels::average_pool_scratch_bytes(4, kernels::Extension::kScalar)));
  }
  const int32_t h = arena("h", DataType::Int8, {1, 4, 4, 4}, s, -1);
  b.add_operator(OpKind::ResizeNearestNeighbor, {g}, {h},
                 union_of(schema::ResizeNearestNeighborOptionsT{}));
  const int32_t i = arena("i", DataType::Int8, {1, 4, 4, 4}, 0.02f, 0);
  {
    const kernels::MulParams p = kernels::prepare_mul(s, -1, s, -1, 0.02f, 0, -128, 127);
    schema::MulOptionsT o = emit::program_options(p);
    b.add_operator(OpKind::Mul, {h, c}, {i}, union_of(std::move(o)));
  }
  const int32_t j = arena("j", DataType::Int8, {1, 4, 4, 8}, 0.02f, 0);
  {
    const int32_t dims[] = {1, 4, 4, 4};
    const kernels::ConcatenationInput q =
        kernels::prepare_concatenation_input(4, dims, 3, s, -1, 0.02f, 0);
    schema::ConcatenationOptionsT o;
    o.axis = 3;
    o.requant = {schema::ConcatRequant(false, 0, schema::Requant(0, 0)),
                 schema::ConcatRequant(true, 1, schema::Requant(q.multiplier, q.shift))};
    b.add_operator(OpKind::Concatenation, {i, c}, {j}, union_of(std::move(o)));
  }
  const int32_t tc_w = b.add_constant_tensor("tc_w", DataType::Int8, {2, 3, 3, 8},
                                             small_weights(144, 2));
  const int32_t k = arena("k", DataType::Int8, {1, 8, 8, 2}, s, 4);
  {
    schema::TransposeConvOptionsT o;
    o.stride_h = o.stride_w = 2;
    o.output_offset = 4;
    const Requants r = per_channel(2, 0.01);
    o.multipliers = region(r.multipliers);
    o.shifts = region(r.shifts);
    const kernels::TransposeConvShape shape{1, 4, 4, 8, 3, 3, 8, 8, 2, 2, 2, 0, 0};
    b.add_operator(OpKind::TransposeConv, {j, tc_w}, {k}, union_of(std::move(o)),
                   scratch(kernels::transpose_conv_scratch_bytes(shape, kernels::Extension::kScalar)
                               .total()));
  }
  const int32_t l = arena("l", DataType::Int8, {1, 4, 4, 2}, s, 4);
  {
    schema::PoolOptionsT o;
    o.filter_h = o.filter_w = 2;
    o.stride_h = o.stride_w = 2;
    b.add_operator(OpKind::MaxPool2D, {k}, {l}, union_of(o));
  }
  const int32_t m = arena("m", DataType::Int8, {1, 4, 4, 2}, s, 4);
  {
    schema::TransposeOptionsT o;
    o.perm = {0, 2, 1, 3};
    b.add_operator(OpKind::Transpose, {l}, {m}, union_of(o));
  }
  const int32_t n = arena("n", DataType::Int8, {1, 4, 4, 2}, s, 4);
  b.add_operator(OpKind::Minimum, {m, l}, {n});
  const int32_t n2 = arena("n2", DataType::Int8, {1, 4, 4, 2}, s, 4);
  b.add_operator(OpKind::Maximum, {n, a}, {n2});
  const int32_t o_t = arena("o", DataType::Int8, {1, 4, 4, 2}, 1.0f / 256, -128);
  {
    const kernels::LogisticParams p = kernels::prepare_logistic(s, 4);
    schema::LogisticOptionsT o = emit::program_options(p);
    b.add_operator(OpKind::Logistic, {n2}, {o_t}, union_of(o));
  }
  const int32_t p_t = arena("p", DataType::Int8, {1, 2}, 1.0f / 256, -128);
  {
    const kernels::QuantizedMultiplier p = kernels::mean_requant(1.0f / 256, 1.0f / 256, 16);
    schema::MeanOptionsT o;
    o.axes = {1, 2};
    o.input_offset = 128;
    o.output_offset = -128;
    o.requant = std::make_unique<schema::Requant>(p.multiplier, p.shift);
    o.formula = schema::MeanFormula::Folded;
    b.add_operator(OpKind::Mean, {o_t}, {p_t}, union_of(std::move(o)));
  }
  const std::vector<int8_t> fc_weights = small_weights(6, 3);
  const std::vector<int32_t> fc_bias = {5, -5, 50};
  const int32_t fc_w = b.add_constant_tensor("fc_w", DataType::Int8, {3, 2}, fc_weights);
  const int32_t fc_b = b.add_constant_tensor("fc_b", DataType::Int32, {3}, fc_bias);
  const int32_t q = arena("q", DataType::Int8, {1, 3}, 0.1f, 0);
  {
    kernels::FullyConnectedParams p{};
    p.input_depth = 2;
    p.output_depth = 3;
    p.input_offset = 128;
    std::vector<int32_t> sums(3);
    kernels::fully_connected_kernel_sums(p, fc_weights.data(), fc_bias.data(), sums.data());
    schema::FullyConnectedOptionsT o;
    o.input_offset = 128;
    const auto rq = kernels::quantize_multiplier(1.0 / 256 * 0.05 / 0.1);
    o.output_requant = std::make_unique<schema::Requant>(rq.multiplier, rq.shift);
    o.kernel_sums = region(sums);
    b.add_operator(OpKind::FullyConnected, {p_t, fc_w, fc_b}, {q}, union_of(std::move(o)));
  }
  const int32_t r_t = arena("r", DataType::Int8, {1, 3}, 1.0f / 256, -128);
  {
    const kernels::SoftmaxParams p = kernels::prepare_softmax(1, 3, 0.1f, 1.0f);
    schema::SoftmaxOptionsT o;
    o.input_multiplier = p.input_multiplier;
    o.input_left_shift = p.input_left_shift;
    o.diff_min = p.diff_min;
    b.add_operator(OpKind::Softmax, {q}, {r_t}, union_of(o));
  }
  const int32_t out = arena("out", DataType::Float32, {1, 3}, 0, 0);
  b.add_operator(OpKind::Dequantize, {r_t}, {out});

  b.set_graph_io({x}, {out});
  b.set_arena(next);
  b.set_plan("naive", 0, next, 0, false);
  b.derive_lifetimes();
  schema::ProgramT program = b.take_program();
  emit::write_call_words(program);  // its FULLY_CONNECTED runs from its prepared call
  return program;
}

void fill_deterministic(Executor& executor) {
  uint32_t s = 1;
  for (size_t i = 0; i < executor.num_inputs(); ++i) {
    const TensorView view = executor.input(i);
    for (size_t k = 0; k < view.size; ++k) {
      s ^= s << 13;
      s ^= s >> 17;
      s ^= s << 5;
      view.data[k] = static_cast<uint8_t>(s & 0xFF);
    }
  }
}

}  // namespace mote::runtime::testing
