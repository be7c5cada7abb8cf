#include "compiler/builder/models.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "compiler/builder/model_builder.h"

namespace mote::builder {

using ir::Activation;
using ir::DataType;
using ir::Padding;

namespace {

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
  std::vector<uint8_t> b(values.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), values.data(), b.size());
  return b;
}

}  // namespace

ir::Graph audio_frontend() {
  ModelBuilder b(1);
  using ir::OpType;
  using ir::SignalOptions;
  const std::vector<int32_t> v4 = {4};
  auto one = [&](OpType type, const std::vector<TensorId>& in, ir::Options o,
                 std::vector<int32_t> shape, DataType t) {
    return b.add_plain_operator(type, in, std::move(o), {{std::move(shape), t}})[0];
  };
  auto scalar = [&](int32_t v) {
    return b.add_plain_constant({}, DataType::kInt32, bytes_of(std::vector<int32_t>{v}));
  };
  TensorId x = b.add_plain_input({1, 48}, DataType::kInt16);
  std::vector<int16_t> hann(48);
  for (size_t i = 0; i < hann.size(); ++i) {
    hann[i] = static_cast<int16_t>(std::lround(4096 * (0.5 - 0.5 * std::cos(2 * M_PI * (i + 0.5) / 48))));
  }
  SignalOptions window;
  window.shift = 12;
  x = one(OpType::kSignalWindow,
          {x, b.add_plain_constant({48}, DataType::kInt16, bytes_of(hann))}, window, {1, 48},
          DataType::kInt16);
  ir::ReshapeOptions flat;
  flat.new_shape = {48};
  x = one(OpType::kReshape, {x}, flat, {48}, DataType::kInt16);
  const std::vector<TensorId> scaled = b.add_plain_operator(
      OpType::kSignalFftAutoScale, {x}, SignalOptions{},
      {{{48}, DataType::kInt16}, {{}, DataType::kInt32}});
  SignalOptions rfft;
  rfft.fft_length = 64;
  x = one(OpType::kSignalRfft, {scaled[0]}, rfft, {66}, DataType::kInt16);
  SignalOptions energy;
  energy.start_index = 1;
  energy.end_index = 30;
  x = one(OpType::kSignalEnergy, {x}, energy, {33}, DataType::kUInt32);
  x = one(OpType::kCast, {x}, std::monostate{}, {33}, DataType::kInt32);
  x = one(OpType::kCast, {x}, std::monostate{}, {33}, DataType::kUInt32);
  // Four triangular channels of 6 bins from bin 2 (5 channel starts: channel 0 only feeds the
  // first output's unweighted half), weights in 12 bits.
  std::vector<int16_t> weights(30), unweights(30), freq(5), start(5), width(5, 6);
  for (int32_t c = 0; c < 5; ++c) {
    freq[c] = static_cast<int16_t>(2 + 5 * c);
    start[c] = static_cast<int16_t>(6 * c);
  }
  for (size_t k = 0; k < weights.size(); ++k) {
    weights[k] = static_cast<int16_t>(4096 * (k % 6 + 1) / 7);
    unweights[k] = static_cast<int16_t>(4096 - weights[k]);
  }
  SignalOptions bank;
  bank.num_channels = 4;
  x = one(OpType::kSignalFilterBank,
          {x, b.add_plain_constant({30}, DataType::kInt16, bytes_of(weights)),
           b.add_plain_constant({30}, DataType::kInt16, bytes_of(unweights)),
           b.add_plain_constant({5}, DataType::kInt16, bytes_of(freq)),
           b.add_plain_constant({5}, DataType::kInt16, bytes_of(start)),
           b.add_plain_constant({5}, DataType::kInt16, bytes_of(width))},
          bank, v4, DataType::kUInt64);
  x = one(OpType::kSignalFilterBankSquareRoot, {x, scaled[1]}, SignalOptions{}, v4,
          DataType::kUInt32);
  // micro_speech's spectral subtraction parameters.
  SignalOptions noise;
  noise.num_channels = 4;
  noise.smoothing = 655;
  noise.one_minus_smoothing = 15729;
  noise.alternate_smoothing = 983;
  noise.alternate_one_minus_smoothing = 15401;
  noise.min_signal_remaining = 819;
  noise.smoothing_bits = 10;
  noise.spectral_subtraction_bits = 14;
  noise.clamping = false;
  const std::vector<TensorId> subtracted = b.add_plain_operator(
      OpType::kSignalFilterBankSpectralSubtraction, {x}, noise,
      {{v4, DataType::kUInt32}, {v4, DataType::kUInt32}});
  // A gain table falling with the noise: each octave's constant term, no slope.
  std::vector<int16_t> lut(125, 0);
  for (size_t i = 0; i < lut.size(); ++i) {
    if (i < 3 || i % 4 == 2) lut[i] = static_cast<int16_t>(8192 >> std::min<size_t>(i / 16, 12));
  }
  SignalOptions pcan;
  pcan.snr_shift = 6;
  x = one(OpType::kSignalPcan,
          {subtracted[0], subtracted[1], b.add_plain_constant({125}, DataType::kInt16, bytes_of(lut))},
          pcan, v4, DataType::kUInt32);
  SignalOptions log;
  log.input_correction_bits = 3;
  log.output_scale = 64;
  x = one(OpType::kSignalFilterBankLog, {x}, log, v4, DataType::kInt16);
  x = one(OpType::kCast, {x}, std::monostate{}, v4, DataType::kInt32);
  const std::pair<OpType, int32_t> steps[] = {{OpType::kMul, 256},      {OpType::kAdd, 333},
                                              {OpType::kDiv, 666},      {OpType::kAdd, -128},
                                              {OpType::kMinimum, 127}, {OpType::kMaximum, -128}};
  for (const auto& [type, value] : steps) {
    ir::Options o = ir::ElementwiseOptions{};
    if (type == OpType::kMinimum || type == OpType::kMaximum) o = std::monostate{};
    x = one(type, {x, scalar(value)}, o, v4, DataType::kInt32);
  }
  x = one(OpType::kCast, {x}, std::monostate{}, v4, DataType::kInt8);
  b.mark_output(x);
  return b.build();
}

ir::Graph conv2d_x3(uint32_t seed) {
  ModelBuilder b(seed);
  TensorId x = b.add_input({1, 8, 8, 3});
  x = b.add_quantize(x, 1.0f / 128, 0);  // inputs in [-1, 1)
  for (int32_t channels : {8, 16, 8}) {
    x = b.add_conv2d(x, channels, 3, 3, 1, Padding::kSame, Activation::kNone, /*bias=*/false);
  }
  b.mark_output(b.add_dequantize(x));
  return b.build();
}

ir::Graph kws_dscnn_like(uint32_t seed) {
  ModelBuilder b(seed);
  TensorId x = b.add_input({1, 49, 10, 1}, DataType::kInt8, 0.5847f, 83);
  x = b.add_conv2d(x, 64, 10, 4, 2, Padding::kSame, Activation::kRelu);
  for (int i = 0; i < 4; ++i) {
    x = b.add_depthwise(x, 3, 3, 1, Padding::kSame, Activation::kRelu);
    x = b.add_conv2d(x, 64, 1, 1, 1, Padding::kSame, Activation::kRelu);
  }
  x = b.add_average_pool(x, 25, 5, 25, 5, Padding::kValid);
  x = b.add_reshape(x, {-1, 64});
  x = b.add_fully_connected(x, 12);
  b.mark_output(b.add_softmax(x));
  return b.build();
}

ir::Graph vww_mobilenet_like(uint32_t seed) {
  ModelBuilder b(seed);
  TensorId x = b.add_input({1, 96, 96, 3}, DataType::kInt8, 1.0f / 255, -128);
  x = b.add_conv2d(x, 8, 3, 3, 2, Padding::kSame, Activation::kRelu);
  // (depthwise stride, pointwise output channels) of the 13 depthwise-separable blocks.
  const int32_t blocks[][2] = {{1, 16},  {2, 32},  {1, 32},  {2, 64},  {1, 64},
                               {2, 128}, {1, 128}, {1, 128}, {1, 128}, {1, 128},
                               {1, 128}, {2, 256}, {1, 256}};
  for (const auto& [stride, channels] : blocks) {
    x = b.add_depthwise(x, 3, 3, stride, Padding::kSame, Activation::kRelu);
    x = b.add_conv2d(x, channels, 1, 1, 1, Padding::kSame, Activation::kRelu);
  }
  x = b.add_average_pool(x, 3, 3, 3, Padding::kValid);
  x = b.add_reshape(x, {-1, 256});
  x = b.add_fully_connected(x, 2);
  b.mark_output(b.add_softmax(x));
  return b.build();
}

ir::Graph resnet8_like(uint32_t seed) {
  ModelBuilder b(seed);
  TensorId x = b.add_input({1, 32, 32, 3}, DataType::kInt8, 1.0f, -128);
  x = b.add_conv2d(x, 16, 3, 3, 1, Padding::kSame, Activation::kRelu);
  // Stage 1 keeps the shape, so the shortcut is the identity.
  TensorId y = b.add_conv2d(x, 16, 3, 3, 1, Padding::kSame, Activation::kRelu);
  y = b.add_conv2d(y, 16, 3, 3, 1, Padding::kSame, Activation::kNone);
  x = b.add_add(x, y, Activation::kRelu);
  // Stages 2 and 3 halve the size and double the channels; a strided 1x1 conv is the shortcut.
  for (int32_t channels : {32, 64}) {
    y = b.add_conv2d(x, channels, 3, 3, 2, Padding::kSame, Activation::kRelu);
    y = b.add_conv2d(y, channels, 3, 3, 1, Padding::kSame, Activation::kNone);
    const TensorId shortcut = b.add_conv2d(x, channels, 1, 1, 2, Padding::kSame, Activation::kNone);
    x = b.add_add(shortcut, y, Activation::kRelu);
  }
  x = b.add_average_pool(x, 8, 8, 8, Padding::kValid);
  x = b.add_reshape(x, {-1, 64});
  x = b.add_fully_connected(x, 10);
  b.mark_output(b.add_softmax(x));
  return b.build();
}

ir::Graph ad_autoencoder_like(uint32_t seed) {
  ModelBuilder b(seed);
  TensorId x = b.add_input({1, 640}, DataType::kInt8, 0.391f, 89);
  for (int32_t units : {128, 128, 128, 128, 8, 128, 128, 128, 128}) {
    x = b.add_fully_connected(x, units, Activation::kRelu);
  }
  b.mark_output(b.add_fully_connected(x, 640));
  return b.build();
}

ir::Graph conv_chain(int n, uint32_t seed) {
  if (n < 1) throw std::invalid_argument("conv_chain: n must be at least 1");
  ModelBuilder b(seed);
  TensorId x = b.add_input({1, 16, 16, 16}, DataType::kInt8, 1.0f / 64, -128);
  for (int i = 0; i < n; ++i) {
    x = b.add_conv2d(x, 16, 3, 3, 1, Padding::kSame, Activation::kRelu);
  }
  b.mark_output(x);
  return b.build();
}

ir::Graph tiny_all_ops(uint32_t seed) {
  ModelBuilder b(seed);
  TensorId x = b.add_input({1, 8, 8, 3});
  x = b.add_quantize(x, 1.0f / 128, 0);
  x = b.add_conv2d(x, 8, 3, 3, 1, Padding::kSame, Activation::kRelu);
  x = b.add_depthwise(x, 3, 3, 1, Padding::kSame, Activation::kRelu6);
  x = b.add_pad(x, {{0, 0}, {1, 1}, {1, 1}, {0, 0}});                    // 1x10x10x8
  const TensorId pooled = b.add_max_pool(x, 2, 2, 2);                   // 1x5x5x8
  const TensorId smooth = b.add_average_pool(pooled, 3, 3, 1, Padding::kSame);
  x = b.add_concatenation({pooled, smooth}, 3);                         // 1x5x5x16
  const TensorId swished = b.add_hard_swish(x);
  x = b.add_add(swished, x);
  x = b.add_mul(x, swished);
  x = b.add_transpose(x, {0, 2, 1, 3});
  x = b.add_resize_nearest(x, 10, 10);                                  // 1x10x10x16
  x = b.add_logistic(x);
  x = b.add_mean(x, {1, 2}, /*keep_dims=*/true);                       // 1x1x1x16
  x = b.add_reshape(x, {1, 16});
  x = b.add_fully_connected(x, 10, Activation::kNone, true, /*per_channel=*/true);
  x = b.add_softmax(x);
  b.mark_output(b.add_dequantize(x));
  return b.build();
}

ir::Graph explicit_pads(uint32_t seed) {
  ModelBuilder b(seed);
  TensorId x = b.add_input({1, 24, 24, 8}, DataType::kInt8, 0.05f, -3);
  // (before, after) rows and columns around the height and width.
  const auto pad = [&b](TensorId t, int32_t before, int32_t after) {
    return b.add_pad(t, {{0, 0}, {before, after}, {before, after}, {0, 0}});
  };
  x = b.add_conv2d(pad(x, 0, 1), 16, 3, 3, 2, Padding::kValid, Activation::kRelu6);  // 12x12
  x = b.add_depthwise(pad(x, 1, 1), 3, 3, 1, Padding::kValid, Activation::kRelu);
  x = b.add_depthwise(pad(x, 0, 1), 3, 3, 2, Padding::kValid, Activation::kRelu6);  // 6x6
  x = b.add_depthwise(pad(x, 2, 2), 5, 5, 1, Padding::kValid, Activation::kRelu6);
  x = b.add_depthwise(pad(x, 3, 3), 7, 7, 1, Padding::kValid, Activation::kRelu);
  x = b.add_max_pool(pad(x, 1, 1), 3, 3, 2);  // 3x3
  x = b.add_average_pool(pad(x, 1, 1), 3, 3, 1);
  b.mark_output(x);
  return b.build();
}

ir::Graph interleaved_branches(uint32_t seed) {
  ModelBuilder b(seed);
  const TensorId x = b.add_input({1, 16, 16, 8}, DataType::kInt8, 0.05f, 0);
  const TensorId a1 = b.add_conv2d(x, 32, 1, 1);
  const TensorId b1 = b.add_conv2d(x, 32, 1, 1);
  const TensorId a2 = b.add_conv2d(a1, 2, 1, 1);
  const TensorId b2 = b.add_conv2d(b1, 2, 1, 1);
  b.mark_output(b.add_add(a2, b2));
  return b.build();
}

ir::Graph as_int16(ir::Graph g) {
  for (ir::Tensor& t : g.tensors) {
    if (t.type != DataType::kInt8 || t.is_constant) continue;
    t.type = DataType::kInt16;
    t.quantization.zero_point.assign(t.quantization.zero_point.size(), 0);
  }
  return g;
}

void widen_bias(ir::Tensor& bias) {
  std::vector<uint8_t> wide(bias.data.size() * 2);
  for (size_t i = 0; i < bias.data.size() / 4; ++i) {
    int32_t v;
    std::memcpy(&v, bias.data.data() + 4 * i, 4);
    const int64_t w = v;
    std::memcpy(wide.data() + 8 * i, &w, 8);
  }
  bias.type = DataType::kInt64;
  bias.data = std::move(wide);
}

ir::Graph int16_layers(uint32_t seed) {
  ModelBuilder b(seed);
  const TensorId x = b.add_input({1, 6, 6, 4}, DataType::kInt8, 0.02f, 0);
  const TensorId d = b.add_depthwise(x, 3, 3, 1, Padding::kSame, Activation::kRelu,
                                     /*depth_multiplier=*/2);
  const TensorId avg = b.add_average_pool(d, 2, 2, 2, Padding::kValid);
  const TensorId max = b.add_max_pool(avg, 3, 3, 1, Padding::kSame);
  // MUL's output scale leaves int16 room for the products (the builder's int8 choice would not).
  const ir::Tensor &a = b.graph().tensors[avg], &m = b.graph().tensors[max];
  const TensorId product =
      b.add_operator(ir::OpType::kMul, {avg, max}, ir::ElementwiseOptions{}, a.shape,
                     a.quantization.scale[0] * m.quantization.scale[0] * 2048.0f, 0);
  const ir::Tensor& p = b.graph().tensors[product];
  const TensorId r6 = b.add_operator(ir::OpType::kRelu6, {product}, std::monostate{}, p.shape,
                                     p.quantization.scale[0], 0);
  const TensorId flat = b.add_reshape(b.add_concatenation({r6, r6}, 3), {1, -1});
  const TensorId fc = b.add_fully_connected(flat, 12, Activation::kNone, true, /*per_channel=*/true);
  const ir::Tensor& f = b.graph().tensors[fc];
  const TensorId r = b.add_operator(ir::OpType::kRelu, {fc}, std::monostate{}, f.shape,
                                    f.quantization.scale[0] * 0.5f, 0);
  b.mark_output(b.add_softmax(b.add_fully_connected(r, 5), 0.5f));
  ir::Graph g = as_int16(b.build());
  g.tensors[g.outputs[0]].quantization.scale = {1.0f / 32768};  // TFLite's int16 softmax output
  // The depthwise and the first FULLY_CONNECTED take int64 biases; the last keeps its int32 one
  // (TFLite's int32-accumulator form).
  widen_bias(g.tensors[g.operators.front().inputs[2]]);
  widen_bias(g.tensors[g.operators[g.operators.size() - 4].inputs[2]]);
  return g;
}

ir::Graph lstm_16x8(uint32_t seed, bool time_major) {
  ModelBuilder b(seed);
  const TensorId x = b.add_input(time_major ? std::vector<int32_t>{3, 2, 6}
                                            : std::vector<int32_t>{2, 3, 6},
                                 DataType::kInt8, 0.04f, 0);
  b.mark_output(b.add_lstm(x, 8, time_major, /*cell_clip=*/3.0f, /*cell_scale_power=*/-11));
  ir::Graph g = as_int16(b.build());
  const ir::Operator& op = g.operators.front();
  // int16 steps 256 times finer over the int8 input's range; the biases, in units of input scale
  // * weights scale, keep their real values.
  g.tensors[op.inputs[0]].quantization.scale[0] /= 256;
  for (int32_t gate = 0; gate < 4; ++gate) {
    ir::Tensor& bias = g.tensors[op.inputs[12 + gate]];
    widen_bias(bias);
    for (size_t k = 0; k < bias.data.size(); k += sizeof(int64_t)) {
      int64_t v;
      std::memcpy(&v, bias.data.data() + k, sizeof v);
      v *= 256;
      std::memcpy(bias.data.data() + k, &v, sizeof v);
    }
    bias.quantization.scale[0] /= 256;
  }
  // The hidden state (which is the output), o * tanh(c), lies in (-1, 1).
  for (int32_t t : {op.inputs[18], op.outputs[0]}) {
    g.tensors[t].quantization.scale = {1.0f / 32768};
  }
  return g;
}

ir::Graph as_int4(ir::Graph g) {
  for (const ir::Operator& op : g.operators) {
    if (op.type != ir::OpType::kConv2D && op.type != ir::OpType::kDepthwiseConv2D &&
        op.type != ir::OpType::kFullyConnected) {
      continue;
    }
    ir::Tensor& w = g.tensors[op.inputs[1]];
    if (w.type != DataType::kInt8) continue;
    std::vector<uint8_t> packed((w.data.size() + 1) / 2, 0);
    for (size_t i = 0; i < w.data.size(); ++i) {
      const float v = static_cast<float>(static_cast<int8_t>(w.data[i])) / 16.0f;
      const int32_t q = std::clamp(static_cast<int32_t>(std::lround(v)), -8, 7);
      packed[i / 2] |= static_cast<uint8_t>((q & 15) << (i % 2 == 0 ? 0 : 4));
    }
    w.type = DataType::kInt4;
    w.data = std::move(packed);
    for (float& s : w.quantization.scale) s *= 16.0f;
    if (op.inputs.size() > 2 && op.inputs[2] != ir::kNoTensor) {
      for (float& s : g.tensors[op.inputs[2]].quantization.scale) s *= 16.0f;
    }
  }
  return g;
}

ir::Graph int4_unpacked(ir::Graph g) {
  for (ir::Tensor& t : g.tensors) {
    if (t.type != DataType::kInt4) continue;
    std::vector<uint8_t> values(static_cast<size_t>(t.num_elements()));
    for (size_t i = 0; i < values.size(); ++i) {
      const uint32_t nibble = (t.data[i / 2] >> (i % 2 == 0 ? 0 : 4)) & 15u;
      values[i] = static_cast<uint8_t>(static_cast<int8_t>(static_cast<int32_t>(nibble ^ 8u) - 8));
    }
    t.type = DataType::kInt8;
    t.data = std::move(values);
  }
  return g;
}

ir::Graph int4_layers(uint32_t seed) {
  ModelBuilder b(seed);
  TensorId x = b.add_input({1, 10, 10, 3}, DataType::kInt8, 0.03f, 5);
  x = b.add_pad(x, {{0, 0}, {1, 1}, {1, 1}, {0, 0}});
  x = b.add_conv2d(x, 5, 3, 3, 2, Padding::kValid, Activation::kRelu6);  // 5x5x5
  x = b.add_depthwise(x, 3, 3, 1, Padding::kSame, Activation::kNone, /*depth_multiplier=*/2);
  x = b.add_depthwise(x, 3, 3, 2, Padding::kSame, Activation::kRelu);  // 3x3x10
  x = b.add_conv2d(x, 7, 1, 1, 1, Padding::kSame, Activation::kNone, /*bias=*/false);
  x = b.add_reshape(x, {1, -1});
  x = b.add_fully_connected(x, 9, Activation::kRelu, true, /*per_channel=*/true);
  b.mark_output(b.add_softmax(b.add_fully_connected(x, 4)));
  return as_int4(b.build());
}

std::vector<NamedModel> all_named_models() {
  std::vector<NamedModel> models;
  models.push_back({"conv2d_x3", conv2d_x3()});
  models.push_back({"kws_dscnn_like", kws_dscnn_like()});
  models.push_back({"vww_mobilenet_like", vww_mobilenet_like()});
  models.push_back({"resnet8_like", resnet8_like()});
  models.push_back({"ad_autoencoder_like", ad_autoencoder_like()});
  models.push_back({"conv_chain_10", conv_chain(10)});
  models.push_back({"tiny_all_ops", tiny_all_ops()});
  models.push_back({"explicit_pads", explicit_pads()});
  return models;
}

}  // namespace mote::builder
