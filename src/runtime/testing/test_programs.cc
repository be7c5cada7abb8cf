#include "runtime/testing/test_programs.h"

#include <algorithm>

#include "mote/kernels/add.h"
#include "mote/kernels/quantization.h"

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

std::vector<uint8_t> pack_unchecked(const schema::ProgramT& program) {
  flatbuffers::FlatBufferBuilder builder;
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
  schema::AddOptionsT add;
  add.input1_offset = ap.input1_offset;
  add.input2_offset = ap.input2_offset;
  add.output_offset = ap.output_offset;
  add.left_shift = ap.left_shift;
  add.input1_requant = std::make_unique<schema::Requant>(ap.input1_multiplier, ap.input1_shift);
  add.input2_requant = std::make_unique<schema::Requant>(ap.input2_multiplier, ap.input2_shift);
  add.output_requant = std::make_unique<schema::Requant>(ap.output_multiplier, ap.output_shift);
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
