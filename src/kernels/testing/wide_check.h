#pragma once
// The 16x8 and int4 kernels of this build (fully_connected_16x8, fully_connected_int4, ...: the
// variant their tables pick) against the portable kernels, bit for bit, on randomized shapes and
// parameters from a fixed-seed generator: depth and channel tails, odd depths (int4 rows starting
// at odd nibbles), long rows (16x8's int64 runs), padding, strides, dilation, depth multipliers,
// batches, per-tensor and per-channel requantization with shifts of both signs, offsets and
// activations at their extremes, inputs at the ends of their ranges, with and without bias. The
// output is followed by guard bytes that must stay untouched. Static buffers, no heap: the host's
// dsp test (dsp/wide_kernels_test.cc) and the firmware's wide_kernels test (M4, M55) run the same
// code. Test support; embeddable C++17.

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "mote/kernels/fully_connected.h"

namespace mote {
namespace kernels {
namespace testing {
namespace wide_check {

// What a run found: cases run per kernel, the first failure's kernel and case (or null).
struct Report {
  int32_t cases = 0;
  const char* failed = nullptr;  // the kernel whose output differed, or whose variant was wrong
  int32_t failed_case = -1;
  int32_t failed_index = -1;  // the first output that differs (-1: guard or variant)
};

class Random {
 public:
  uint32_t next() {  // xorshift32
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return state_;
  }
  int32_t uniform(int32_t lo, int32_t hi) {
    return lo + static_cast<int32_t>(next() % (static_cast<uint32_t>(hi - lo) + 1u));
  }
  bool coin(int32_t percent) { return uniform(0, 99) < percent; }
  // Mostly uniform in [lo, hi], a fifth of the time one of its ends.
  int32_t edgy(int32_t lo, int32_t hi) {
    const int32_t r = uniform(0, 9);
    return r == 0 ? lo : (r == 1 ? hi : uniform(lo, hi));
  }

 private:
  uint32_t state_ = 0x9e3779b9u;
};

inline constexpr int32_t kGuard = 32;
inline constexpr size_t kMaxInput = 4096;    // elements
inline constexpr size_t kMaxFilter = 12288;  // elements
inline constexpr size_t kMaxOutput = 2048;   // elements
inline constexpr int32_t kMaxChannels = 64;

struct Buffers {
  int16_t input16[kMaxInput];
  int8_t input8[kMaxInput];
  int8_t filter[kMaxFilter];
  uint8_t packed[kMaxFilter / 2 + 1];
  int64_t bias64[kMaxChannels];
  int32_t bias32[kMaxChannels];
  int32_t multiplier[kMaxChannels];
  int32_t shift[kMaxChannels];
  alignas(8) int8_t want[2 * kMaxOutput + kGuard];
  alignas(8) int8_t got[2 * kMaxOutput + kGuard];
};

inline Buffers& buffers() {
  static Buffers b;
  return b;
}

inline void fill_inputs(Random& r, size_t n, int32_t spread) {
  Buffers& b = buffers();
  for (size_t i = 0; i < n; ++i) {
    b.input16[i] = static_cast<int16_t>(r.edgy(-32768, 32767) / spread);
    b.input8[i] = static_cast<int8_t>(r.edgy(-128, 127));
  }
}

// Filters of int8 (16x8) and int4 values, the latter also packed two per byte, low nibble first.
inline void fill_filters(Random& r, size_t n) {
  Buffers& b = buffers();
  memset(b.packed, 0, n / 2 + 1);
  for (size_t i = 0; i < n; ++i) {
    b.filter[i] = static_cast<int8_t>(r.edgy(-128, 127));
    const uint8_t nibble = static_cast<uint8_t>(r.edgy(-8, 7)) & 15u;
    b.packed[i / 2] = static_cast<uint8_t>(b.packed[i / 2] | ((i & 1) != 0 ? nibble << 4 : nibble));
  }
}

// Biases (int64 up to 2^40, int32 up to 2^20) and requantization for `channels`. Half the calls
// keep int64 biases below 2^30 (mostly small, so that outputs do not all clamp) and shifts in
// [-17, -1], as int16 layers have them: the int32 sums and one high multiply of the dsp and mve
// kernels (wide_16x8.h's sums_fit_int32), which the wider values send to the 64-bit step.
inline void fill_quantization(Random& r, int32_t channels, int32_t min_shift, int32_t max_shift) {
  Buffers& b = buffers();
  const bool int16_like = r.coin(50);
  for (int32_t c = 0; c < channels; ++c) {
    b.bias64[c] =
        int16_like
            ? (r.coin(10) ? r.edgy(-(1 << 30) + 1, (1 << 30) - 1) : r.uniform(-65536, 65536))
            : (static_cast<int64_t>(r.uniform(-(1 << 20), 1 << 20)) << 20) + r.uniform(-1000, 1000);
    b.bias32[c] = r.uniform(-(1 << 20), 1 << 20);
    b.multiplier[c] = r.coin(10) ? INT32_MAX : r.uniform(1 << 30, INT32_MAX);
    b.shift[c] = int16_like ? r.edgy(min_shift < -17 ? -17 : min_shift,
                                     max_shift > -1 ? -1 : max_shift)
                            : r.uniform(min_shift, max_shift);
  }
}

// The activation range of an output type: the whole range, or a random part of it.
inline void pick_activation(Random& r, int32_t lo, int32_t hi, int32_t* act_min, int32_t* act_max) {
  if (r.coin(50)) {
    *act_min = lo;
    *act_max = hi;
    return;
  }
  const int32_t a = r.uniform(lo, hi), c = r.uniform(lo, hi);
  *act_min = a < c ? a : c;
  *act_max = a < c ? c : a;
}

// Runs `kernel(output)` into `got` and `portable(output)` into `want` (guards after `count`
// elements of `element_bytes`) and compares; records a failure in `report`.
template <typename Kernel, typename Portable>
bool compare(Report& report, const char* name, int32_t case_index, size_t count,
             size_t element_bytes, Kernel&& kernel, Portable&& portable) {
  Buffers& b = buffers();
  const size_t bytes = count * element_bytes;
  memset(b.want, 0x5A, bytes + kGuard);
  memset(b.got, 0x5A, bytes + kGuard);
  portable(static_cast<void*>(b.want));
  kernel(static_cast<void*>(b.got));
  for (size_t i = 0; i < bytes + kGuard; ++i) {
    if (b.want[i] != b.got[i]) {
      report.failed = name;
      report.failed_case = case_index;
      report.failed_index = i < bytes ? static_cast<int32_t>(i / element_bytes) : -1;
      return false;
    }
  }
  return true;
}

inline bool variant_is(Report& report, const char* name, const char* got, const char* want) {
  if (strcmp(got, want) == 0) return true;
  report.failed = name;
  return false;
}

// FULLY_CONNECTED 16x8 (int64 and int32 bias, and none) and int4.
inline bool check_fully_connected(Report& report, Random& r, const char* variant, int32_t cases) {
  Buffers& b = buffers();
  for (int32_t k = 0; k < cases; ++k, ++report.cases) {
    FullyConnectedParams p{};
    p.batches = r.uniform(1, 3);
    // Long rows now and then: more than one int64 run of the dsp 16x8 dot products.
    p.input_depth = r.coin(15) ? r.uniform(250, 600) : r.uniform(1, 90);
    p.output_depth = r.uniform(1, 13);
    if (static_cast<size_t>(p.batches) * p.input_depth > kMaxInput) p.batches = 1;
    p.per_channel = r.coin(50);
    p.input_offset = r.edgy(-127, 128);
    p.filter_offset = r.coin(30) ? r.edgy(-8, 8) : 0;
    p.output_offset = r.edgy(-128, 127);
    p.output_multiplier = b.multiplier;
    p.output_shift = b.shift;
    fill_inputs(r, static_cast<size_t>(p.batches) * p.input_depth, r.coin(30) ? 1 : 64);
    fill_filters(r, static_cast<size_t>(p.output_depth) * p.input_depth);
    fill_quantization(r, p.output_depth, -24, 2);
    const size_t outputs = static_cast<size_t>(p.batches) * p.output_depth;
    const bool with_bias = r.coin(80);
    if (r.coin(10)) {
      // The largest products of one sign: int64 sums past int32 (and saturated outputs).
      for (size_t i = 0; i < static_cast<size_t>(p.batches) * p.input_depth; ++i)
        b.input16[i] = -32768;
      memset(b.filter, 0x80, static_cast<size_t>(p.output_depth) * p.input_depth);
    }

    FullyConnectedParams p16 = p;
    pick_activation(r, -32768, 32767, &p16.act_min, &p16.act_max);
    p16.filter_offset = r.coin(20) ? r.edgy(-8, 8) : 0;
    // int32 sums (TFLite's form for an int32 bias): parameters whose sums stay within int32.
    FullyConnectedParams p16_32 = p16;
    if (p16_32.input_depth > 400) p16_32.input_depth = 400;
    p16_32.filter_offset = 0;
    if (!variant_is(report, "fully_connected_16x8 variant",
                    built_fully_connected_16x8_kernel_variant(p.output_depth), variant) ||
        !variant_is(report, "fully_connected_int4 variant",
                    built_fully_connected_int4_kernel_variant(p.output_depth), variant)) {
      return false;
    }
    const int64_t* b64 = with_bias ? b.bias64 : nullptr;
    const int32_t* b32 = with_bias ? b.bias32 : nullptr;
    if (!compare(
            report, "fully_connected_16x8 (int64)", k, outputs, 2,
            [&](void* y) {
              fully_connected_16x8(p16, b.input16, b.filter, b64, static_cast<int16_t*>(y));
            },
            [&](void* y) {
              portable_fully_connected_16x8(p16, b.input16, b.filter, b64,
                                            static_cast<int16_t*>(y));
            }) ||
        !compare(
            report, "fully_connected_16x8 (int32)", k, outputs, 2,
            [&](void* y) {
              fully_connected_16x8(p16_32, b.input16, b.filter, b32, static_cast<int16_t*>(y));
            },
            [&](void* y) {
              portable_fully_connected_16x8(p16_32, b.input16, b.filter, b32,
                                            static_cast<int16_t*>(y));
            })) {
      return false;
    }
    FullyConnectedParams p4 = p;
    pick_activation(r, -128, 127, &p4.act_min, &p4.act_max);
    if (!compare(
            report, "fully_connected_int4", k, outputs, 1,
            [&](void* y) {
              fully_connected_int4(p4, b.input8, b.packed, b32, static_cast<int8_t*>(y));
            },
            [&](void* y) {
              portable_fully_connected_int4(p4, b.input8, b.packed, b32, static_cast<int8_t*>(y));
            })) {
      return false;
    }
  }
  return true;
}

// A random window geometry (as the int8 tests): filters 1..5, strides 1..3, dilation, padding,
// output sizes that a folded PAD may leave uneven.
template <typename Shape>
void random_window(Random& r, Shape& s) {
  s.batches = r.uniform(1, 2);
  s.filter_h = r.uniform(1, 5);
  s.filter_w = r.uniform(1, 5);
  s.stride_h = r.uniform(1, 3);
  s.stride_w = r.uniform(1, 3);
  s.dilation_h = r.coin(20) ? r.uniform(2, 3) : 1;
  s.dilation_w = r.coin(20) ? r.uniform(2, 3) : 1;
  s.input_h = r.uniform(1, 9);
  s.input_w = r.uniform(1, 9);
  const int32_t eh = s.dilation_h * (s.filter_h - 1) + 1, ew = s.dilation_w * (s.filter_w - 1) + 1;
  const bool same = r.coin(50);
  s.pad_h = same ? r.uniform(0, eh - 1) : 0;
  s.pad_w = same ? r.uniform(0, ew - 1) : 0;
  const int32_t h = s.input_h + 2 * s.pad_h - eh, w = s.input_w + 2 * s.pad_w - ew;
  s.output_h = h < 0 ? 1 : h / s.stride_h + 1;
  s.output_w = w < 0 ? 1 : w / s.stride_w + 1;
  if (h < 0) s.pad_h = 0;
  if (w < 0) s.pad_w = 0;
}

// CONV_2D 16x8 (int64 and int32 bias, and none) and int4; 1x1 often.
inline bool check_conv(Report& report, Random& r, const char* variant, int32_t cases) {
  Buffers& b = buffers();
  for (int32_t k = 0; k < cases; ++k, ++report.cases) {
    ConvParams p{};
    ConvShape& s = p.shape;
    random_window(r, s);
    if (r.coin(30)) {
      s.filter_h = s.filter_w = 1;
      s.pad_h = s.pad_w = 0;
      s.output_h = (s.input_h - 1) / s.stride_h + 1;
      s.output_w = (s.input_w - 1) / s.stride_w + 1;
    }
    s.input_c = s.filter_c = r.coin(20) ? r.uniform(17, 40) : r.uniform(1, 12);
    s.output_c = r.uniform(1, 11);
    const size_t inputs = static_cast<size_t>(s.batches) * s.input_h * s.input_w * s.input_c;
    const size_t filters = static_cast<size_t>(s.output_c) * s.filter_h * s.filter_w * s.filter_c;
    const size_t outputs = static_cast<size_t>(s.batches) * s.output_h * s.output_w * s.output_c;
    if (inputs > kMaxInput || filters > kMaxFilter || outputs > kMaxOutput) {
      --k;
      --report.cases;
      continue;
    }
    p.input_offset = r.edgy(-127, 128);
    p.output_offset = r.edgy(-128, 127);
    p.output_multiplier = b.multiplier;
    p.output_shift = b.shift;
    const int32_t spread = r.coin(30) ? 1 : 64;
    fill_inputs(r, inputs, spread);
    fill_filters(r, filters);
    fill_quantization(r, s.output_c, -24, 2);
    // int32 sums only where they cannot overflow (TFLite's condition for that form).
    const bool int32_sums_fit =
        static_cast<int64_t>(filters / s.output_c) * (32768 / spread) * 128 <
        (int64_t{1} << 31) - (1 << 20);
    const bool with_bias = r.coin(80);
    const int64_t* b64 = with_bias ? b.bias64 : nullptr;
    const int32_t* b32 = with_bias ? b.bias32 : nullptr;
    if (!variant_is(report, "conv_16x8 variant", built_conv_16x8_kernel_variant(s), variant) ||
        !variant_is(report, "conv_int4 variant", built_conv_int4_kernel_variant(s), variant)) {
      return false;
    }
    ConvParams p16 = p;
    pick_activation(r, -32768, 32767, &p16.act_min, &p16.act_max);
    if (!compare(
            report, "conv_16x8 (int64)", k, outputs, 2,
            [&](void* y) { conv2d_16x8(p16, b.input16, b.filter, b64, static_cast<int16_t*>(y)); },
            [&](void* y) {
              portable_conv2d_16x8(p16, b.input16, b.filter, b64, static_cast<int16_t*>(y));
            }) ||
        (int32_sums_fit &&
         !compare(
             report, "conv_16x8 (int32)", k, outputs, 2,
             [&](void* y) { conv2d_16x8(p16, b.input16, b.filter, b32, static_cast<int16_t*>(y)); },
             [&](void* y) {
               portable_conv2d_16x8(p16, b.input16, b.filter, b32, static_cast<int16_t*>(y));
             }))) {
      return false;
    }
    ConvParams p4 = p;
    pick_activation(r, -128, 127, &p4.act_min, &p4.act_max);
    if (!compare(
            report, "conv_int4", k, outputs, 1,
            [&](void* y) { conv2d_int4(p4, b.input8, b.packed, b32, static_cast<int8_t*>(y)); },
            [&](void* y) {
              portable_conv2d_int4(p4, b.input8, b.packed, b32, static_cast<int8_t*>(y));
            })) {
      return false;
    }
  }
  return true;
}

// DEPTHWISE_CONV_2D 16x8 (int64 bias, and none) and int4; depth multipliers 1..4.
inline bool check_depthwise(Report& report, Random& r, const char* variant, int32_t cases) {
  Buffers& b = buffers();
  for (int32_t k = 0; k < cases; ++k, ++report.cases) {
    DepthwiseConvParams p{};
    DepthwiseShape& s = p.shape;
    random_window(r, s);
    s.input_c = r.coin(20) ? r.uniform(17, 40) : r.uniform(1, 12);
    const int32_t multiplier = r.coin(60) ? 1 : r.uniform(2, 4);
    s.output_c = s.input_c * multiplier;
    const size_t inputs = static_cast<size_t>(s.batches) * s.input_h * s.input_w * s.input_c;
    const size_t filters = static_cast<size_t>(s.filter_h) * s.filter_w * s.output_c;
    const size_t outputs = static_cast<size_t>(s.batches) * s.output_h * s.output_w * s.output_c;
    if (inputs > kMaxInput || filters > kMaxFilter || outputs > kMaxOutput ||
        s.output_c > kMaxChannels) {
      --k;
      --report.cases;
      continue;
    }
    p.input_offset = r.edgy(-127, 128);
    p.output_offset = r.edgy(-128, 127);
    p.output_multiplier = b.multiplier;
    p.output_shift = b.shift;
    fill_inputs(r, inputs, r.coin(30) ? 1 : 64);
    fill_filters(r, filters);
    fill_quantization(r, s.output_c, -24, 2);
    const bool with_bias = r.coin(80);
    const int64_t* b64 = with_bias ? b.bias64 : nullptr;
    const int32_t* b32 = with_bias ? b.bias32 : nullptr;
    if (!variant_is(report, "depthwise_conv_16x8 variant",
                    built_depthwise_conv_16x8_kernel_variant(s), variant) ||
        !variant_is(report, "depthwise_conv_int4 variant",
                    built_depthwise_conv_int4_kernel_variant(s), variant)) {
      return false;
    }
    DepthwiseConvParams p16 = p;
    pick_activation(r, -32768, 32767, &p16.act_min, &p16.act_max);
    if (!compare(
            report, "depthwise_conv_16x8", k, outputs, 2,
            [&](void* y) {
              depthwise_conv2d_16x8(p16, b.input16, b.filter, b64, static_cast<int16_t*>(y));
            },
            [&](void* y) {
              portable_depthwise_conv2d_16x8(p16, b.input16, b.filter, b64,
                                             static_cast<int16_t*>(y));
            })) {
      return false;
    }
    DepthwiseConvParams p4 = p;
    pick_activation(r, -128, 127, &p4.act_min, &p4.act_max);
    if (!compare(
            report, "depthwise_conv_int4", k, outputs, 1,
            [&](void* y) {
              depthwise_conv2d_int4(p4, b.input8, b.packed, b32, static_cast<int8_t*>(y));
            },
            [&](void* y) {
              portable_depthwise_conv2d_int4(p4, b.input8, b.packed, b32, static_cast<int8_t*>(y));
            })) {
      return false;
    }
  }
  return true;
}

// Every check; true when all agree. `variant`: what this build's tables must pick ("dsp", "mve",
// "portable").
inline bool check_all(Report& report, const char* variant, int32_t cases) {
  Random r;
  return check_fully_connected(report, r, variant, cases) &&
         check_conv(report, r, variant, cases) && check_depthwise(report, r, variant, cases);
}

}  // namespace wide_check
}  // namespace testing
}  // namespace kernels
}  // namespace mote
