#pragma once
// The layer-shape grid: one layer per row, each family's shapes from the shared models (MLPerf
// Tiny KWS DS-CNN, VWW MobileNetV1 0.25, IC ResNet-8, AD autoencoder) and from common networks
// (MobileNetV2 / MCUNet inverted residuals, TFLM micro_speech, MLPerf Tiny streaming wake word,
// channel counts that are not multiples of 4 or 16), with the geometry TFLite computes and the
// data every runner fills them with. A peer's runner built outside the repository includes this
// header too, so both sides run the same shapes on the same bytes (and their outputs can be
// compared by checksum). Embeddable C++17, no Mote kernel headers: only sizes and data.

#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace mote {
namespace bench {
namespace grid {

enum class Kind : uint8_t {
  kConv,            // CONV_2D (groups > 1: grouped)
  kDepthwise,       // DEPTHWISE_CONV_2D, depth multiplier out_c / c
  kFullyConnected,  // FULLY_CONNECTED, per-tensor quantization; h = batches, c = input depth
  kAveragePool,     // AVERAGE_POOL_2D
  kMaxPool,         // MAX_POOL_2D
  kAdd,             // ADD, both inputs of the output's shape
  kMul,             // MUL, both inputs of the output's shape
  kRequantize,      // QUANTIZE int8 -> int8 (a change of scale and zero point)
  // int16 activations with int8 weights (16x8: int64 bias, int16 output) and int8 activations
  // with int4 weights (packed two per byte, low nibble first): the geometry of the int8 kind.
  kConv16x8,
  kConvInt4,
  kDepthwise16x8,
  kDepthwiseInt4,
  kFullyConnected16x8,
  kFullyConnectedInt4,
  // The other operators of a network's int8 path, all with int8 data (float where named), no
  // filter and no per-channel arrays.
  kSoftmax,       // SOFTMAX over the last dimension (beta 1): h * w rows of c classes
  kAddBroadcast,  // ADD, input 2 [1, 1, 1, out_c] broadcast over input 1 [1, h, w, c]: out_c == c
                  // per channel (squeeze-excite), out_c == 1 a scalar; the output is input 1's shape
  kMulBroadcast,  // MUL, the same shapes
  kMean,          // MEAN over H and W (axes [1, 2]): [1, h, w, c] -> [1, 1, 1, c]; kh, kw = h, w
  kQuantize,      // QUANTIZE float32 -> int8
  kDequantize,    // DEQUANTIZE int8 -> float32
};

// Runners built against several versions of this header test for the kinds above with these.
#define MOTE_GRID_WIDE_KINDS 1
#define MOTE_GRID_OPERATOR_KINDS 1

// The int8 kind whose geometry and tensors' shapes a kind has.
inline constexpr Kind shape_kind(Kind k) {
  switch (k) {
    case Kind::kConv16x8:
    case Kind::kConvInt4: return Kind::kConv;
    case Kind::kDepthwise16x8:
    case Kind::kDepthwiseInt4: return Kind::kDepthwise;
    case Kind::kFullyConnected16x8:
    case Kind::kFullyConnectedInt4: return Kind::kFullyConnected;
    default: return k;
  }
}
inline constexpr bool is_16x8(Kind k) {
  return k == Kind::kConv16x8 || k == Kind::kDepthwise16x8 || k == Kind::kFullyConnected16x8;
}
inline constexpr bool is_int4(Kind k) {
  return k == Kind::kConvInt4 || k == Kind::kDepthwiseInt4 || k == Kind::kFullyConnectedInt4;
}
inline constexpr bool is_broadcast(Kind k) { return k == Kind::kAddBroadcast || k == Kind::kMulBroadcast; }
// Kinds whose output has the input's shape (elementwise and softmax).
inline constexpr bool keeps_shape(Kind k) {
  return k == Kind::kAdd || k == Kind::kMul || k == Kind::kRequantize || k == Kind::kSoftmax ||
         is_broadcast(k) || k == Kind::kQuantize || k == Kind::kDequantize;
}
// Bytes of one input and one output element: int16 (16x8), float32 (quantize's input,
// dequantize's output), else int8.
inline constexpr int32_t input_element_bytes(Kind k) {
  return is_16x8(k) ? 2 : k == Kind::kQuantize ? 4 : 1;
}
inline constexpr int32_t output_element_bytes(Kind k) {
  return is_16x8(k) ? 2 : k == Kind::kDequantize ? 4 : 1;
}

struct Layer {
  const char* id;      // the row's key in the table and in the peer's figures
  const char* family;  // the table's first column
  Kind kind;
  int32_t h, w, c;     // input [1, h, w, c]
  int32_t kh, kw;      // window (conv, depthwise, pools)
  int32_t out_c;       // conv, depthwise, fully connected; else c
  int32_t stride;      // both directions
  bool same;           // SAME padding, else VALID
  int32_t groups;      // conv: filter channels = c / groups
};

// clang-format off
inline constexpr Layer kLayers[] = {
  // Pointwise convolution: the 1x1 layers of DS-CNN, MobileNetV1 and V2, ResNet-8's shortcut,
  // 1-D audio's width-1 maps, a detection head, tails.
  {"pw_kws_25x5_64_64",     "conv 1x1", Kind::kConv, 25, 5, 64,    1, 1, 64,   1, true, 1},
  {"pw_vww_48x48_8_16",     "conv 1x1", Kind::kConv, 48, 48, 8,    1, 1, 16,   1, true, 1},
  {"pw_ic_s2_32x32_16_32",  "conv 1x1", Kind::kConv, 32, 32, 16,   1, 1, 32,   2, true, 1},
  {"pw_mbv2_expand_16_96",  "conv 1x1", Kind::kConv, 40, 40, 16,   1, 1, 96,   1, true, 1},
  {"pw_mbv2_project_144_24", "conv 1x1", Kind::kConv, 20, 20, 144, 1, 1, 24,   1, true, 1},
  {"pw_mcunet_10x10_40_240", "conv 1x1", Kind::kConv, 10, 10, 40,  1, 1, 240,  1, true, 1},
  {"pw_strww_24x1_128_128", "conv 1x1", Kind::kConv, 24, 1, 128,   1, 1, 128,  1, true, 1},
  {"pw_head_12x12_64_18",   "conv 1x1", Kind::kConv, 12, 12, 64,   1, 1, 18,   1, true, 1},
  {"pw_tail_16x16_13_21",   "conv 1x1", Kind::kConv, 16, 16, 13,   1, 1, 21,   1, true, 1},
  {"pw_tail_12x12_36_7",    "conv 1x1", Kind::kConv, 12, 12, 36,   1, 1, 7,    1, true, 1},
  // Convolution with a window: first layers, ResNet-8's 3x3s, 1-D audio (1xN and Nx1), tails.
  {"conv_kws_10x4_s2",      "conv kxk", Kind::kConv, 49, 10, 1,    10, 4, 64,  2, true, 1},
  {"conv_vww_3x3_s2_3_8",   "conv kxk", Kind::kConv, 96, 96, 3,    3, 3, 8,    2, true, 1},
  {"conv_ic_3x3_16_16",     "conv kxk", Kind::kConv, 32, 32, 16,   3, 3, 16,   1, true, 1},
  {"conv_ic_3x3_s2_32_64",  "conv kxk", Kind::kConv, 16, 16, 32,   3, 3, 64,   2, true, 1},
  {"conv_5x5_16x16_8_16",   "conv kxk", Kind::kConv, 16, 16, 8,    5, 5, 16,   1, true, 1},
  {"conv_1xn_1x49_10_64",   "conv kxk", Kind::kConv, 1, 49, 10,    1, 10, 64,  2, true, 1},
  {"conv_nx1_30x1_40_64",   "conv kxk", Kind::kConv, 30, 1, 40,    3, 1, 64,   1, false, 1},
  {"conv_tail_3x3_16x16_7_13", "conv kxk", Kind::kConv, 16, 16, 7, 3, 3, 13,   1, true, 1},
  {"conv_tail_3x3_s2_15x15_21_36", "conv kxk", Kind::kConv, 15, 15, 21, 3, 3, 36, 2, true, 1},
  // Grouped convolution.
  {"group4_3x3_16x16_32_32", "conv grouped", Kind::kConv, 16, 16, 32, 3, 3, 32, 1, true, 4},
  // Depthwise 3x3, depth multiplier 1.
  {"dw_kws_25x5_64",        "depthwise 3x3", Kind::kDepthwise, 25, 5, 64,   3, 3, 64,  1, true, 1},
  {"dw_vww_48x48_8",        "depthwise 3x3", Kind::kDepthwise, 48, 48, 8,   3, 3, 8,   1, true, 1},
  {"dw_vww_s2_24x24_32",    "depthwise 3x3", Kind::kDepthwise, 24, 24, 32,  3, 3, 32,  2, true, 1},
  {"dw_mbv2_20x20_144",     "depthwise 3x3", Kind::kDepthwise, 20, 20, 144, 3, 3, 144, 1, true, 1},
  {"dw_mbv2_s2_40x40_96",   "depthwise 3x3", Kind::kDepthwise, 40, 40, 96,  3, 3, 96,  2, true, 1},
  {"dw_tail_14x14_21",      "depthwise 3x3", Kind::kDepthwise, 14, 14, 21,  3, 3, 21,  1, true, 1},
  {"dw_tail_s2_15x15_13",   "depthwise 3x3", Kind::kDepthwise, 15, 15, 13,  3, 3, 13,  2, true, 1},
  // Depthwise 5x5 and 7x7 (MobileNetV3, MCUNet).
  {"dw5_14x14_48",          "depthwise 5x5 7x7", Kind::kDepthwise, 14, 14, 48, 5, 5, 48, 1, true, 1},
  {"dw5_s2_28x28_40",       "depthwise 5x5 7x7", Kind::kDepthwise, 28, 28, 40, 5, 5, 40, 2, true, 1},
  {"dw7_10x10_96",          "depthwise 5x5 7x7", Kind::kDepthwise, 10, 10, 96, 7, 7, 96, 1, true, 1},
  {"dw7_s2_20x20_48",       "depthwise 5x5 7x7", Kind::kDepthwise, 20, 20, 48, 7, 7, 48, 2, true, 1},
  // A depth multiplier: one input channel into several (micro_speech), and two channels each.
  {"dwm_microspeech_49x40_1_8", "depthwise multiplier", Kind::kDepthwise, 49, 40, 1, 10, 8, 8, 2, true, 1},
  {"dwm_32x32_1_4",         "depthwise multiplier", Kind::kDepthwise, 32, 32, 1, 3, 3, 4,  1, true, 1},
  {"dwm_16x16_8_16",        "depthwise multiplier", Kind::kDepthwise, 16, 16, 8, 3, 3, 16, 1, true, 1},
  // Depthwise along 1-D windows (MLPerf Tiny streaming wake word, [1, T, 1, C]).
  {"dw1d_strww_30x1_40_3",  "depthwise 1-D", Kind::kDepthwise, 30, 1, 40,  3, 1, 40,   1, false, 1},
  {"dw1d_strww_28x1_128_5", "depthwise 1-D", Kind::kDepthwise, 28, 1, 128, 5, 1, 128,  1, false, 1},
  {"dw1d_strww_24x1_128_10", "depthwise 1-D", Kind::kDepthwise, 24, 1, 128, 10, 1, 128, 1, false, 1},
  {"dw1d_strww_15x1_128_15", "depthwise 1-D", Kind::kDepthwise, 15, 1, 128, 15, 1, 128, 1, false, 1},
  // Fully connected.
  {"fc_kws_64_12",          "fully connected", Kind::kFullyConnected, 1, 1, 64,   1, 1, 12,  1, true, 1},
  {"fc_ad_640_128",         "fully connected", Kind::kFullyConnected, 1, 1, 640,  1, 1, 128, 1, true, 1},
  {"fc_1024_256",           "fully connected", Kind::kFullyConnected, 1, 1, 1024, 1, 1, 256, 1, true, 1},
  {"fc_tail_250_21",        "fully connected", Kind::kFullyConnected, 1, 1, 250,  1, 1, 21,  1, true, 1},
  // Pools.
  {"avg_kws_global_25x5_64", "pool", Kind::kAveragePool, 25, 5, 64,  25, 5, 64, 1, false, 1},
  {"avg_2x2_s2_16x16_21",   "pool", Kind::kAveragePool, 16, 16, 21,  2, 2, 21,  2, false, 1},
  {"max_2x2_s2_32x32_16",   "pool", Kind::kMaxPool, 32, 32, 16,      2, 2, 16,  2, false, 1},
  {"max_3x3_s2_20x20_13",   "pool", Kind::kMaxPool, 20, 20, 13,      3, 3, 13,  2, true, 1},
  // Elementwise, both inputs of the output's shape; a change of quantization.
  {"add_mbv2_20x20_24",     "elementwise", Kind::kAdd, 20, 20, 24, 1, 1, 24, 1, true, 1},
  {"add_tail_13x13_7",      "elementwise", Kind::kAdd, 13, 13, 7,  1, 1, 7,  1, true, 1},
  {"mul_20x20_24",          "elementwise", Kind::kMul, 20, 20, 24, 1, 1, 24, 1, true, 1},
  {"mul_tail_13x13_7",      "elementwise", Kind::kMul, 13, 13, 7,  1, 1, 7,  1, true, 1},
  {"requantize_20x20_24",   "elementwise", Kind::kRequantize, 20, 20, 24, 1, 1, 24, 1, true, 1},
  // 16x8 (int16 activations) and int4 weights: a few of the int8 rows' shapes (odd depths too).
  {"s16_pw_kws_25x5_64_64",  "conv 16x8", Kind::kConv16x8, 25, 5, 64,  1, 1, 64, 1, true, 1},
  {"s16_conv_ic_3x3_16_16",  "conv 16x8", Kind::kConv16x8, 32, 32, 16, 3, 3, 16, 1, true, 1},
  {"s16_dw_kws_25x5_64",     "depthwise 16x8", Kind::kDepthwise16x8, 25, 5, 64, 3, 3, 64, 1, true, 1},
  {"s16_dw_vww_s2_24x24_32", "depthwise 16x8", Kind::kDepthwise16x8, 24, 24, 32, 3, 3, 32, 2, true, 1},
  {"s16_fc_ad_640_128",      "fully connected 16x8", Kind::kFullyConnected16x8, 1, 1, 640, 1, 1, 128, 1, true, 1},
  {"s16_fc_tail_250_21",     "fully connected 16x8", Kind::kFullyConnected16x8, 1, 1, 250, 1, 1, 21, 1, true, 1},
  {"s4_pw_kws_25x5_64_64",   "conv int4", Kind::kConvInt4, 25, 5, 64,  1, 1, 64, 1, true, 1},
  {"s4_conv_ic_3x3_16_16",   "conv int4", Kind::kConvInt4, 32, 32, 16, 3, 3, 16, 1, true, 1},
  {"s4_dw_kws_25x5_64",      "depthwise int4", Kind::kDepthwiseInt4, 25, 5, 64, 3, 3, 64, 1, true, 1},
  {"s4_dw_vww_s2_24x24_32",  "depthwise int4", Kind::kDepthwiseInt4, 24, 24, 32, 3, 3, 32, 2, true, 1},
  {"s4_fc_ad_640_128",       "fully connected int4", Kind::kFullyConnectedInt4, 1, 1, 640, 1, 1, 128, 1, true, 1},
  {"s4_fc_odd_85_21",        "fully connected int4", Kind::kFullyConnectedInt4, 1, 1, 85, 1, 1, 21, 1, true, 1},
  // Softmax: KWS's 12 classes, an ImageNet head's 1000, and [49, 10] (rows of a 2-D tensor).
  {"softmax_kws_12",         "softmax", Kind::kSoftmax, 1, 1, 12,    1, 1, 12,   1, true, 1},
  {"softmax_1000",           "softmax", Kind::kSoftmax, 1, 1, 1000,  1, 1, 1000, 1, true, 1},
  {"softmax_rows_49x10",     "softmax", Kind::kSoftmax, 49, 1, 10,   1, 1, 10,   1, true, 1},
  // ADD and MUL with broadcasting: a per-channel operand over a map (MobileNetV3's squeeze-excite
  // scales, a per-channel offset) and a scalar one.
  {"add_bc_chan_20x20_24",   "elementwise broadcast", Kind::kAddBroadcast, 20, 20, 24, 1, 1, 24, 1, true, 1},
  {"add_bc_scalar_20x20_24", "elementwise broadcast", Kind::kAddBroadcast, 20, 20, 24, 1, 1, 1,  1, true, 1},
  {"mul_se_14x14_96",        "elementwise broadcast", Kind::kMulBroadcast, 14, 14, 96, 1, 1, 96, 1, true, 1},
  {"mul_se_7x7_576",         "elementwise broadcast", Kind::kMulBroadcast, 7, 7, 576,  1, 1, 576, 1, true, 1},
  {"mul_bc_scalar_20x20_24", "elementwise broadcast", Kind::kMulBroadcast, 20, 20, 24, 1, 1, 1,  1, true, 1},
  // MEAN over H and W (TFLite's global average): MobileNetV2's last map and a small one.
  {"mean_hw_7x7_1280",       "mean", Kind::kMean, 7, 7, 1280, 7, 7, 1280, 1, false, 1},
  {"mean_hw_5x5_96",         "mean", Kind::kMean, 5, 5, 96,   5, 5, 96,   1, false, 1},
  // A model's float boundary: a 96x96 RGB input quantized, a 1000-class output dequantized.
  {"quantize_96x96x3",       "quantize float", Kind::kQuantize, 96, 96, 3, 1, 1, 3, 1, true, 1},
  {"quantize_1000",          "quantize float", Kind::kQuantize, 1, 1, 1000, 1, 1, 1000, 1, true, 1},
  {"dequantize_96x96x3",     "quantize float", Kind::kDequantize, 96, 96, 3, 1, 1, 3, 1, true, 1},
  {"dequantize_1000",        "quantize float", Kind::kDequantize, 1, 1, 1000, 1, 1, 1000, 1, true, 1},
};
// clang-format on
inline constexpr int32_t kLayerCount = static_cast<int32_t>(sizeof(kLayers) / sizeof(kLayers[0]));

// Output size and top/left padding as TFLite computes them (SAME: ceil(in / stride); VALID:
// ceil((in - window + 1) / stride); padding half of what SAME needs, rounded down).
struct Geometry {
  int32_t out_h, out_w;
  int32_t pad_h, pad_w;
};
inline int32_t out_size(int32_t in, int32_t window, int32_t stride, bool same) {
  return same ? (in + stride - 1) / stride : (in - window + stride) / stride;
}
inline int32_t pad_size(int32_t in, int32_t out, int32_t window, int32_t stride) {
  const int32_t total = (out - 1) * stride + window - in;
  return total > 0 ? total / 2 : 0;
}
inline Geometry geometry(const Layer& l) {
  const Kind kind = shape_kind(l.kind);
  if (kind == Kind::kFullyConnected || keeps_shape(l.kind)) return Geometry{l.h, l.w, 0, 0};
  Geometry g{out_size(l.h, l.kh, l.stride, l.same), out_size(l.w, l.kw, l.stride, l.same), 0, 0};
  g.pad_h = pad_size(l.h, g.out_h, l.kh, l.stride);
  g.pad_w = pad_size(l.w, g.out_w, l.kw, l.stride);
  return g;
}

// Element counts of a layer's tensors.
inline int32_t input_elements(const Layer& l) { return l.h * l.w * l.c; }
inline int32_t output_elements(const Layer& l) {
  if (shape_kind(l.kind) == Kind::kFullyConnected) return l.h * l.out_c;
  if (is_broadcast(l.kind)) return input_elements(l);
  const Geometry g = geometry(l);
  return g.out_h * g.out_w * l.out_c;
}
// Input 2 of add and mul: the input's shape, or [1, 1, 1, out_c] broadcast.
inline int32_t input2_elements(const Layer& l) {
  if (is_broadcast(l.kind)) return l.out_c;
  return l.kind == Kind::kAdd || l.kind == Kind::kMul ? input_elements(l) : 0;
}
inline int32_t filter_elements(const Layer& l) {
  switch (shape_kind(l.kind)) {
    case Kind::kConv: return l.out_c * l.kh * l.kw * (l.c / l.groups);
    case Kind::kDepthwise: return l.kh * l.kw * l.out_c;
    case Kind::kFullyConnected: return l.out_c * l.c;
    default: return 0;
  }
}

// Static buffer capacities every runner allocates (a layer that does not fit is an error).
inline constexpr int32_t kMaxInput = 160 * 1024;
inline constexpr int32_t kMaxOutput = 160 * 1024;
inline constexpr int32_t kMaxFilter = 256 * 1024;
inline constexpr int32_t kMaxChannels = 256;  // per-channel arrays (conv, depthwise, fc)
inline constexpr int32_t kMaxScratch = 32 * 1024;

// The data: a xorshift32 stream seeded from the layer's id, so that adding a row changes no
// other row's bytes.
class Random {
 public:
  explicit Random(const char* id) {
    uint32_t h = 2166136261u;  // FNV-1a of the id
    for (const char* p = id; *p != '\0'; ++p) h = (h ^ static_cast<uint8_t>(*p)) * 16777619u;
    state_ = h == 0 ? 0x2545f491u : h;
  }
  uint32_t next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return state_;
  }
  int32_t uniform(int32_t lo, int32_t hi) {
    return lo + static_cast<int32_t>(next() % static_cast<uint32_t>(hi - lo + 1));
  }

 private:
  uint32_t state_;
};

// Scalar quantization of a layer (arrays go to the caller's buffers). Offsets follow the
// kernels' convention: input_offset = -input zero point, output_offset = +output zero point.
struct Quantization {
  int32_t input_offset, output_offset;
  int32_t act_min, act_max;
  // Fully connected (per tensor) and requantize.
  int32_t multiplier, shift;
  // Add: each input to a common scale with left_shift bits of headroom, then to the output.
  int32_t input2_offset;
  int32_t left_shift;
  int32_t input1_multiplier, input1_shift, input2_multiplier, input2_shift;
  // Softmax (its input's), mean (both), quantize (the output's), dequantize (the input's), with
  // the zero points above; each runner computes its kernel's parameters from these as its
  // framework's Prepare does.
  float input_scale, output_scale;
};

// Fills a layer's tensors: `input` (and `input2` for add and mul), `filter` [filter_elements],
// `bias`, `multipliers` and `shifts` [out_c], all from the layer's own seed, and returns its
// scalars. Multipliers are Q31 mantissas in [0.5, 1), shifts right shifts (as converters write
// them for these layers), chosen so that outputs spread over the int8 range. Quantize's input is
// float32 (its bytes in `input`), in [-1, 1] in steps of 1/1000.
inline Quantization fill(const Layer& l, int8_t* input, int8_t* input2, int8_t* filter,
                         int32_t* bias, int32_t* multipliers, int32_t* shifts) {
  Random r(l.id);
  Quantization q{};
  q.input_offset = r.uniform(-127, 128);
  q.output_offset = r.uniform(-128, 127);
  q.act_min = -128;
  q.act_max = 127;
  for (int32_t i = 0; i < input_elements(l); ++i) {
    if (l.kind == Kind::kQuantize) {
      const float x = static_cast<float>(r.uniform(-1000, 1000)) / 1000.0f;
      memcpy(input + 4 * i, &x, sizeof(x));
    } else {
      input[i] = static_cast<int8_t>(r.uniform(-128, 127));
    }
  }
  for (int32_t i = 0; i < input2_elements(l); ++i) {
    input2[i] = static_cast<int8_t>(r.uniform(-128, 127));
  }
  for (int32_t i = 0; i < filter_elements(l); ++i) filter[i] = static_cast<int8_t>(r.uniform(-127, 127));
  // A sum of n products of about 128 * 73 has a spread of about sqrt(n) * 9,000: shift it
  // into the int8 range.
  const int32_t taps = l.kind == Kind::kConv ? l.kh * l.kw * (l.c / l.groups)
                       : l.kind == Kind::kDepthwise ? l.kh * l.kw
                                                    : l.c;
  int32_t spread_bits = 0;
  while ((1 << (2 * spread_bits)) < taps) ++spread_bits;  // about log2(sqrt(taps))
  const int32_t base_shift = -(7 + spread_bits);
  const bool has_channels = l.kind == Kind::kConv || l.kind == Kind::kDepthwise ||
                            l.kind == Kind::kFullyConnected;
  for (int32_t o = 0; has_channels && o < l.out_c; ++o) {
    bias[o] = r.uniform(-4000, 4000);
    multipliers[o] = static_cast<int32_t>((1u << 30) + (r.next() >> 2));
    shifts[o] = base_shift + r.uniform(-1, 1);
  }
  // Fully connected and requantize: one multiplier; fully connected shifted as the channels.
  q.multiplier = static_cast<int32_t>((1u << 30) + (r.next() >> 2));
  q.shift = l.kind == Kind::kRequantize ? 0 : base_shift;
  // Add, as TFLite's Prepare sets it for inputs of scales 1 and 0.8 into an output of scale 1.5:
  // inputs at 0.5 and 0.4 of twice the larger scale with 20 bits of headroom, the sum times
  // 2 / (2^20 * 1.5). Mul: the product times about 2^-8.
  q.input2_offset = r.uniform(-127, 128);
  q.left_shift = 20;
  q.input1_multiplier = 1073741824;  // 0.5
  q.input1_shift = 0;
  q.input2_multiplier = 1717986918;  // 0.8 * 2^-1
  q.input2_shift = -1;
  if (l.kind == Kind::kAdd || l.kind == Kind::kAddBroadcast) {
    q.multiplier = 1431655765;  // 0.667 * 2^-19
    q.shift = -19;
  } else if (l.kind == Kind::kMul || l.kind == Kind::kMulBroadcast) {
    q.shift = -8;
  }
  // Softmax: logits of scale 1/16 to 1/8 (differences from a row's maximum up to 16 to 32).
  // Mean: the average of uniform bytes spreads about a seventh as far (49 of them), so an output
  // scale of about a third of the input's. Quantize: [-1, 1] at 1/128, a zero point near 0.
  // Dequantize: any scale, the input's zero point.
  if (l.kind == Kind::kSoftmax) {
    q.input_scale = static_cast<float>(r.uniform(64, 128)) / 1024.0f;
  } else if (l.kind == Kind::kMean) {
    q.input_scale = 0.0390625f;
    q.output_scale = 0.01171875f;
  } else if (l.kind == Kind::kQuantize) {
    q.output_scale = 0.0078125f;
    q.output_offset = r.uniform(-8, 8);
  } else if (l.kind == Kind::kDequantize) {
    q.input_scale = 0.0234375f;
  }
  return q;
}

// The 16x8 and int4 rows' data, from the layer's own seed: int16 inputs over their whole range
// (16x8) or int8 ones with an offset (int4), int8 weights or int4 ones packed (two per byte, low
// nibble first), int64 (16x8) or int32 biases, per-channel requantization shifted so that the
// outputs spread over their type's range (fully connected: the first channel's, per tensor).
inline Quantization fill_wide(const Layer& l, int16_t* input16, int8_t* input8, int8_t* filter,
                              int64_t* bias64, int32_t* bias32, int32_t* multipliers,
                              int32_t* shifts) {
  Random r(l.id);
  Quantization q{};
  const bool wide_input = is_16x8(l.kind);
  q.input_offset = wide_input ? 0 : r.uniform(-127, 128);
  q.output_offset = wide_input ? 0 : r.uniform(-128, 127);
  q.act_min = wide_input ? -32768 : -128;
  q.act_max = wide_input ? 32767 : 127;
  for (int32_t i = 0; i < input_elements(l); ++i) {
    if (wide_input) {
      input16[i] = static_cast<int16_t>(r.uniform(-32768, 32767));
    } else {
      input8[i] = static_cast<int8_t>(r.uniform(-128, 127));
    }
  }
  const int32_t n = filter_elements(l);
  for (int32_t i = 0; i < n; ++i) {
    if (wide_input) {
      filter[i] = static_cast<int8_t>(r.uniform(-127, 127));
    } else {
      const uint32_t nibble = static_cast<uint32_t>(r.uniform(-8, 7)) & 15u;
      uint8_t& byte = reinterpret_cast<uint8_t&>(filter[i / 2]);
      byte = static_cast<uint8_t>((i & 1) != 0 ? (byte & 15u) | nibble << 4 : nibble);
    }
  }
  const Kind kind = shape_kind(l.kind);
  const int32_t taps = kind == Kind::kConv ? l.kh * l.kw * l.c
                       : kind == Kind::kDepthwise ? l.kh * l.kw
                                                  : l.c;
  int32_t spread_bits = 0;
  while ((1 << (2 * spread_bits)) < taps) ++spread_bits;
  // int16 x int8 sums spread about 2^(15 + 6) sqrt(taps) into int16; int8 x int4 about 2^(7 + 2).
  const int32_t base_shift = wide_input ? -(7 + spread_bits) : -(3 + spread_bits);
  for (int32_t o = 0; o < l.out_c; ++o) {
    bias64[o] = r.uniform(-40000, 40000);
    bias32[o] = r.uniform(-400, 400);
    multipliers[o] = static_cast<int32_t>((1u << 30) + (r.next() >> 2));
    shifts[o] = base_shift + r.uniform(-1, 1);
  }
  q.multiplier = multipliers[0];
  q.shift = base_shift;
  return q;
}

// FNV-1a of the output bytes, printed beside each count so that runners of the same grid can be
// checked to compute the same outputs.
inline uint32_t checksum(const int8_t* data, int32_t n) {
  uint32_t h = 2166136261u;
  for (int32_t i = 0; i < n; ++i) h = (h ^ static_cast<uint8_t>(data[i])) * 16777619u;
  return h;
}

}  // namespace grid
}  // namespace bench
}  // namespace mote
