#pragma once
// Layer shapes from the MLPerf Tiny models (keyword spotting DS-CNN, visual wake words
// MobileNetV1 0.25, image classification ResNet-8, anomaly detection autoencoder) with random int8
// data, shared by the Google Benchmark timings and the single-call executable for callgrind.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "mote/kernels/fully_connected.h"
#include "mote/kernels/scratch.h"
#include "mote/kernels/transpose_conv.h"

namespace mote::bench {

using namespace mote::kernels;

enum class Op { kConv, kDepthwise, kFullyConnected, kTransposeConv };

struct LayerSpec {
  const char* name;
  const char* model;  // MLPerf Tiny model the layer belongs to ("" if none)
  int32_t count;      // how many layers of this shape the model has
  Op op;
  // conv / depthwise / transpose conv: n, h, w, c_in, kh, kw, c_filter (conv only), ho, wo, c_out,
  // stride_h, stride_w, pad_h, pad_w. Fully connected: batches = n, input depth = c_in,
  // output depth = c_out.
  int32_t n, h, w, ci, kh, kw, cf, ho, wo, co, sh, sw, ph, pw;
};

// Every convolution-family layer of the four models (pooling, softmax and add are not here).
// clang-format off
inline const std::vector<LayerSpec>& Layers() {
  static const std::vector<LayerSpec> layers = {
    // Keyword spotting (DS-CNN): 49x10x1 input, 4 depthwise-separable blocks of 64 channels.
    {"kws_conv_10x4_s2",       "kws", 1, Op::kConv,           1, 49, 10, 1,   10, 4, 1,    25, 5, 64,   2, 2, 4, 1},
    {"kws_dw_3x3_64",          "kws", 4, Op::kDepthwise,      1, 25, 5, 64,   3, 3, 0,     25, 5, 64,   1, 1, 1, 1},
    {"kws_pw_64_64",           "kws", 4, Op::kConv,           1, 25, 5, 64,   1, 1, 64,    25, 5, 64,   1, 1, 0, 0},
    {"kws_fc_64_12",           "kws", 1, Op::kFullyConnected, 1, 1, 1, 64,    1, 1, 0,     1, 1, 12,    1, 1, 0, 0},
    // Visual wake words (MobileNetV1 0.25): 96x96x3 input.
    {"vww_conv_3x3_s2_3_8",    "vww", 1, Op::kConv,           1, 96, 96, 3,   3, 3, 3,     48, 48, 8,   2, 2, 0, 0},
    {"vww_dw_48x48x8",         "vww", 1, Op::kDepthwise,      1, 48, 48, 8,   3, 3, 0,     48, 48, 8,   1, 1, 1, 1},
    {"vww_pw_48x48_8_16",      "vww", 1, Op::kConv,           1, 48, 48, 8,   1, 1, 8,     48, 48, 16,  1, 1, 0, 0},
    {"vww_dw_s2_48x48x16",     "vww", 1, Op::kDepthwise,      1, 48, 48, 16,  3, 3, 0,     24, 24, 16,  2, 2, 0, 0},
    {"vww_pw_24x24_16_32",     "vww", 1, Op::kConv,           1, 24, 24, 16,  1, 1, 16,    24, 24, 32,  1, 1, 0, 0},
    {"vww_dw_24x24x32",        "vww", 1, Op::kDepthwise,      1, 24, 24, 32,  3, 3, 0,     24, 24, 32,  1, 1, 1, 1},
    {"vww_pw_24x24_32_32",     "vww", 1, Op::kConv,           1, 24, 24, 32,  1, 1, 32,    24, 24, 32,  1, 1, 0, 0},
    {"vww_dw_s2_24x24x32",     "vww", 1, Op::kDepthwise,      1, 24, 24, 32,  3, 3, 0,     12, 12, 32,  2, 2, 0, 0},
    {"vww_pw_12x12_32_64",     "vww", 1, Op::kConv,           1, 12, 12, 32,  1, 1, 32,    12, 12, 64,  1, 1, 0, 0},
    {"vww_dw_12x12x64",        "vww", 1, Op::kDepthwise,      1, 12, 12, 64,  3, 3, 0,     12, 12, 64,  1, 1, 1, 1},
    {"vww_pw_12x12_64_64",     "vww", 1, Op::kConv,           1, 12, 12, 64,  1, 1, 64,    12, 12, 64,  1, 1, 0, 0},
    {"vww_dw_s2_12x12x64",     "vww", 1, Op::kDepthwise,      1, 12, 12, 64,  3, 3, 0,     6, 6, 64,    2, 2, 0, 0},
    {"vww_pw_6x6_64_128",      "vww", 1, Op::kConv,           1, 6, 6, 64,    1, 1, 64,    6, 6, 128,   1, 1, 0, 0},
    {"vww_dw_6x6x128",         "vww", 5, Op::kDepthwise,      1, 6, 6, 128,   3, 3, 0,     6, 6, 128,   1, 1, 1, 1},
    {"vww_pw_6x6_128_128",     "vww", 5, Op::kConv,           1, 6, 6, 128,   1, 1, 128,   6, 6, 128,   1, 1, 0, 0},
    {"vww_dw_s2_6x6x128",      "vww", 1, Op::kDepthwise,      1, 6, 6, 128,   3, 3, 0,     3, 3, 128,   2, 2, 0, 0},
    {"vww_pw_3x3_128_256",     "vww", 1, Op::kConv,           1, 3, 3, 128,   1, 1, 128,   3, 3, 256,   1, 1, 0, 0},
    {"vww_dw_3x3x256",         "vww", 1, Op::kDepthwise,      1, 3, 3, 256,   3, 3, 0,     3, 3, 256,   1, 1, 1, 1},
    {"vww_pw_3x3_256_256",     "vww", 1, Op::kConv,           1, 3, 3, 256,   1, 1, 256,   3, 3, 256,   1, 1, 0, 0},
    {"vww_fc_256_2",           "vww", 1, Op::kFullyConnected, 1, 1, 1, 256,   1, 1, 0,     1, 1, 2,     1, 1, 0, 0},
    // Image classification (ResNet-8): 32x32x3 input.
    {"ic_conv_3x3_3_16",       "ic",  1, Op::kConv,           1, 32, 32, 3,   3, 3, 3,     32, 32, 16,  1, 1, 1, 1},
    {"ic_conv_3x3_16_16",      "ic",  2, Op::kConv,           1, 32, 32, 16,  3, 3, 16,    32, 32, 16,  1, 1, 1, 1},
    {"ic_conv_3x3_s2_16_32",   "ic",  1, Op::kConv,           1, 32, 32, 16,  3, 3, 16,    16, 16, 32,  2, 2, 0, 0},
    {"ic_conv_3x3_32_32",      "ic",  1, Op::kConv,           1, 16, 16, 32,  3, 3, 32,    16, 16, 32,  1, 1, 1, 1},
    {"ic_conv_1x1_s2_16_32",   "ic",  1, Op::kConv,           1, 32, 32, 16,  1, 1, 16,    16, 16, 32,  2, 2, 0, 0},
    {"ic_conv_3x3_s2_32_64",   "ic",  1, Op::kConv,           1, 16, 16, 32,  3, 3, 32,    8, 8, 64,    2, 2, 0, 0},
    {"ic_conv_3x3_64_64",      "ic",  1, Op::kConv,           1, 8, 8, 64,    3, 3, 64,    8, 8, 64,    1, 1, 1, 1},
    {"ic_conv_1x1_s2_32_64",   "ic",  1, Op::kConv,           1, 16, 16, 32,  1, 1, 32,    8, 8, 64,    2, 2, 0, 0},
    {"ic_fc_64_10",            "ic",  1, Op::kFullyConnected, 1, 1, 1, 64,    1, 1, 0,     1, 1, 10,    1, 1, 0, 0},
    // Anomaly detection (fully connected autoencoder).
    {"ad_fc_640_128",          "ad",  1, Op::kFullyConnected, 1, 1, 1, 640,   1, 1, 0,     1, 1, 128,   1, 1, 0, 0},
    {"ad_fc_128_128",          "ad",  6, Op::kFullyConnected, 1, 1, 1, 128,   1, 1, 0,     1, 1, 128,   1, 1, 0, 0},
    {"ad_fc_128_8",            "ad",  1, Op::kFullyConnected, 1, 1, 1, 128,   1, 1, 0,     1, 1, 8,     1, 1, 0, 0},
    {"ad_fc_8_128",            "ad",  1, Op::kFullyConnected, 1, 1, 1, 8,     1, 1, 0,     1, 1, 128,   1, 1, 0, 0},
    {"ad_fc_128_640",          "ad",  1, Op::kFullyConnected, 1, 1, 1, 128,   1, 1, 0,     1, 1, 640,   1, 1, 0, 0},
    // Others: a large classifier head and a transpose conv (FACTS.md example, 8x8x32 -> 16x16x16).
    {"fc_1024_1000",           "",    1, Op::kFullyConnected, 1, 1, 1, 1024,  1, 1, 0,     1, 1, 1000,  1, 1, 0, 0},
    {"tconv_8x8x32_s2",        "",    1, Op::kTransposeConv,  1, 8, 8, 32,    3, 3, 0,     16, 16, 16,  2, 2, 0, 0},
  };
  return layers;
}
// clang-format on

// One layer's tensors and parameters, ready to run. Scratch is sized for `extension`.
class Layer {
 public:
  Layer(const LayerSpec& spec, Extension extension, bool kernel_sums = false) : spec_(spec) {
    std::mt19937 rng(7);
    auto int8s = [&](size_t n) {
      std::vector<int8_t> v(n);
      for (auto& x : v) x = static_cast<int8_t>(std::uniform_int_distribution<int>(-128, 127)(rng));
      return v;
    };
    const LayerSpec& s = spec;
    const int32_t filter_elems =
        s.op == Op::kDepthwise ? s.kh * s.kw * s.co
        : s.op == Op::kFullyConnected ? s.ci * s.co
        : s.op == Op::kTransposeConv ? s.co * s.kh * s.kw * s.ci
                                     : s.co * s.kh * s.kw * s.cf;
    input_ = int8s(static_cast<size_t>(s.n) * s.h * s.w * s.ci);
    filter_ = int8s(filter_elems);
    bias_.assign(s.co, 0);
    for (auto& b : bias_) b = std::uniform_int_distribution<int32_t>(-5000, 5000)(rng);
    multiplier_.assign(s.co, 1 << 30);
    for (auto& m : multiplier_) m = std::uniform_int_distribution<int32_t>(1 << 30, INT32_MAX)(rng);
    shift_.assign(s.co, -9);
    output_.assign(static_cast<size_t>(s.n) * s.ho * s.wo * s.co, 0);
    size_t scratch_bytes = 0;
    switch (s.op) {
      case Op::kConv:
        conv_.shape = ConvShape{s.n, s.h, s.w, s.ci, s.kh, s.kw, s.cf, s.ho, s.wo, s.co, s.sh, s.sw, s.ph, s.pw, 1, 1};
        conv_.input_offset = 128;
        conv_.output_offset = -128;
        conv_.act_min = -128;
        conv_.act_max = 127;
        conv_.output_multiplier = multiplier_.data();
        conv_.output_shift = shift_.data();
        scratch_bytes = conv_scratch_bytes(conv_.shape, extension);
        break;
      case Op::kDepthwise:
        dw_.shape = DepthwiseShape{s.n, s.h, s.w, s.ci, s.kh, s.kw, s.ho, s.wo, s.co, s.sh, s.sw, s.ph, s.pw, 1, 1};
        dw_.input_offset = 128;
        dw_.output_offset = -128;
        dw_.act_min = -128;
        dw_.act_max = 127;
        dw_.output_multiplier = multiplier_.data();
        dw_.output_shift = shift_.data();
        scratch_bytes = depthwise_conv_scratch_bytes(dw_.shape, extension);
        break;
      case Op::kFullyConnected:
        fc_ = FullyConnectedParams{s.n, s.ci, s.co, 128, 0, -128, -128, 127,
                                   multiplier_.data(), shift_.data(), false, nullptr};
        if (kernel_sums) {
          sums_.resize(s.co);
          fully_connected_kernel_sums(fc_, filter_.data(), bias_.data(), sums_.data());
          fc_.kernel_sums = sums_.data();
        }
        break;
      case Op::kTransposeConv:
        tc_.shape = TransposeConvShape{s.n, s.h, s.w, s.ci, s.kh, s.kw, s.ho, s.wo, s.co, s.sh, s.sw, s.ph, s.pw};
        tc_.input_offset = 128;
        tc_.output_offset = -128;
        tc_.act_min = -128;
        tc_.act_max = 127;
        tc_.output_multiplier = multiplier_.data();
        tc_.output_shift = shift_.data();
        scratch_bytes = transpose_conv_scratch_bytes(tc_.shape, extension).total();
        break;
    }
    scratch_.assign(scratch_bytes + 16, 0);
    scratch_bytes_ = scratch_bytes;
  }

  const LayerSpec& spec() const { return spec_; }
  int64_t macs() const {
    const LayerSpec& s = spec_;
    switch (s.op) {
      case Op::kConv: return int64_t{s.n} * s.ho * s.wo * s.co * s.kh * s.kw * s.cf;
      case Op::kDepthwise: return int64_t{s.n} * s.ho * s.wo * s.co * s.kh * s.kw;
      case Op::kFullyConnected: return int64_t{s.n} * s.ci * s.co;
      case Op::kTransposeConv: return int64_t{s.n} * s.h * s.w * s.kh * s.kw * s.ci * s.co;
    }
    return 0;
  }
  const std::vector<int8_t>& output() const { return output_; }
  // Tensors, for running the same layer through another library.
  const std::vector<int8_t>& input() const { return input_; }
  const std::vector<int8_t>& filter() const { return filter_; }
  const std::vector<int32_t>& bias() const { return bias_; }
  const std::vector<int32_t>& multiplier() const { return multiplier_; }
  const std::vector<int32_t>& shift() const { return shift_; }

  void Run() {
    // 16-byte aligned scratch, as the planner places it.
    auto* base = scratch_.data();
    auto* aligned = reinterpret_cast<int8_t*>((reinterpret_cast<uintptr_t>(base) + 15) & ~uintptr_t{15});
    const Scratch scratch{scratch_bytes_ ? aligned : nullptr, scratch_bytes_};
    switch (spec_.op) {
      case Op::kConv:
        conv2d(conv_, input_.data(), filter_.data(), bias_.data(), output_.data(), scratch);
        break;
      case Op::kDepthwise:
        depthwise_conv2d(dw_, input_.data(), filter_.data(), bias_.data(), output_.data(), scratch);
        break;
      case Op::kFullyConnected:
        fully_connected(fc_, input_.data(), filter_.data(), bias_.data(), output_.data());
        break;
      case Op::kTransposeConv:
        transpose_conv2d(tc_, input_.data(), filter_.data(), bias_.data(), output_.data(), scratch);
        break;
    }
  }

 private:
  LayerSpec spec_;
  std::vector<int8_t> input_, filter_, output_, scratch_;
  std::vector<int32_t> bias_, multiplier_, shift_, sums_;
  size_t scratch_bytes_ = 0;
  ConvParams conv_{};
  DepthwiseConvParams dw_{};
  FullyConnectedParams fc_{};
  TransposeConvParams tc_{};
};

}  // namespace mote::bench
