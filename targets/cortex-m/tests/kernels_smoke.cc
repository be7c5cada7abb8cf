// Kernel code built for the target CPU and run under QEMU. The inline fixed-point helpers are
// checked against values worked out by hand from TFLite's reference semantics (FACTS.md §2);
// kernel sources that exist (mote_kernels is linked whole, so all of it must link for the
// target) add their own checks: quantization.cc and scratch.cc (FACTS.md §1 reference sizes for
// this CPU's extension).

#include <math.h>
#include <stdint.h>

#include "mote/kernels/batch_matmul.h"
#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "mote/kernels/fully_connected.h"
#include "mote/kernels/gather.h"
#include "mote/kernels/lstm.h"
#include "mote/kernels/quantization.h"
#include "mote/kernels/quantize.h"
#include "mote/kernels/svdf.h"
#include "mote/kernels/cmsis_nn_scratch.h"
#include "mote/kernels/arg_min_max.h"
#include "mote/kernels/mean.h"
#include "mote/kernels/prelu.h"
#include "mote/kernels/relu.h"
#include "mote/kernels/resize_bilinear.h"
#include "mote/kernels/rsqrt.h"
#include "mote/kernels/squared_difference.h"
#include "mote/kernels/strided_copy.h"
#include "mote/kernels/tanh.h"
#include "platform/board.h"
#include "platform/console.h"

namespace {

using mote::platform::Line;
namespace k = mote::kernels;

struct Checks {
  int failed = 0;
  void expect(bool ok, const char* what) {
    Line().text(ok ? "  ok   " : "  FAIL ").text(what).end();
    if (!ok) ++failed;
  }
  void expect_equal(int64_t got, int64_t want, const char* what) {
    Line line;
    line.text(got == want ? "  ok   " : "  FAIL ").text(what).text(": ").signed_number(got);
    if (got != want) line.text(" (expected ").signed_number(want).text(")");
    line.end();
    if (got != want) ++failed;
  }
};

// volatile inputs so that the target's code computes them, not the compiler.
int32_t opaque(int32_t v) {
  volatile int32_t x = v;
  return x;
}

void check_inline_helpers(Checks& c) {
  c.expect_equal(k::saturating_rounding_doubling_high_mul(opaque(INT32_MIN), opaque(INT32_MIN)),
                INT32_MAX, "srdhm saturates INT32_MIN^2");
  c.expect_equal(k::saturating_rounding_doubling_high_mul(opaque(1 << 30), opaque(1 << 30)),
                1 << 29, "srdhm 2^30 * 2^30");
  c.expect_equal(k::saturating_rounding_doubling_high_mul(opaque(-(1 << 30)), opaque(1 << 30)),
                -(1 << 29), "srdhm -2^30 * 2^30");
  c.expect_equal(k::rounding_divide_by_pot(opaque(5), 1), 3, "rdbp 5/2");
  c.expect_equal(k::rounding_divide_by_pot(opaque(-5), 1), -3, "rdbp -5/2");
  c.expect_equal(k::rounding_divide_by_pot(opaque(-6), 2), -2, "rdbp -6/4");
  c.expect_equal(k::rounding_divide_by_pot(opaque(7), 2), 2, "rdbp 7/4");
  c.expect_equal(k::multiply_by_quantized_multiplier(opaque(100), 1 << 30, 0), 50, "mbqm 100*0.5");
  c.expect_equal(k::multiply_by_quantized_multiplier(opaque(12345), 1 << 30, 1), 12345,
                "mbqm 12345*0.5*2");
  c.expect_equal(k::multiply_by_quantized_multiplier(opaque(-77), 1 << 30, -3), -5,
                "mbqm -77*0.5/8");
}

#if defined(MOTE_KERNEL_SOURCE_QUANTIZATION)
void check_quantization(Checks& c) {
  volatile double half = 0.5;
  const k::QuantizedMultiplier a = k::quantize_multiplier(half);
  c.expect(a.multiplier == (1 << 30) && a.shift == 0, "quantize_multiplier(0.5)");
  const k::QuantizedMultiplier b = k::quantize_multiplier(half / 2);
  c.expect(b.multiplier == (1 << 30) && b.shift == -1, "quantize_multiplier(0.25)");
  const k::QuantizedMultiplier d = k::quantize_multiplier(half * 1.5);
  c.expect(d.multiplier == 1610612736 && d.shift == 0, "quantize_multiplier(0.75)");
  const k::ActivationRange relu6 = k::activation_range_int8(k::FusedActivation::kRelu6, 0.1f, -128);
  c.expect(relu6.min == -128 && relu6.max == -68, "activation_range_int8(RELU6, 0.1, -128)");
  const k::ActivationRange relu = k::activation_range_int8(k::FusedActivation::kRelu, 0.5f, 5);
  c.expect(relu.min == 5 && relu.max == 127, "activation_range_int8(RELU, 0.5, 5)");
}
#endif

#if defined(MOTE_KERNEL_SOURCE_SCRATCH)
// FACTS.md §1 reference values, for scalar / DSP / MVE.
int64_t for_extension(int64_t scalar, int64_t dsp, int64_t mve) {
  switch (static_cast<k::Extension>(MOTE_FIRMWARE_EXTENSION)) {
    case k::Extension::kScalar: return scalar;
    case k::Extension::kDsp: return dsp;
    default: return mve;
  }
}

// QUANTIZE from float at and next to every half (where this CPU's rounding path, VCVTA on
// Armv8-M or truncation and remainder elsewhere, could part from roundf), both signs, past the
// clamp, infinities and NaN, against roundf on this CPU.
void check_quantize(Checks& c) {
  static float in[200];
  int32_t n = 0;
  const float bases[] = {0.0f, 1.0f, 2.0f, 126.0f, 127.0f, 1023.0f, 1024.0f, 40000.0f};
  for (const float base : bases) {
    const float near[] = {base + 0.5f, base + 0.49999997f, base + 0.50000006f, base};
    for (const float v : near) {
      in[n++] = v;
      in[n++] = -v;
    }
  }
  in[n++] = 0.49999997f;
  in[n++] = -0.49999997f;
  in[n++] = __builtin_inff();
  in[n++] = -__builtin_inff();
  in[n++] = 3e9f;
  in[n++] = __builtin_nanf("");
  const int32_t zero_points[] = {0, -128, 100};
  for (const int32_t zp : zero_points) {
    static int8_t narrow[200];
    static int16_t wide[200];
    k::quantize(k::prepare_quantize(1.0f, zp), in, narrow, static_cast<size_t>(n));
    k::quantize(k::prepare_quantize(1.0f, zp), in, wide, static_cast<size_t>(n));
    bool ok = true;
    for (int32_t i = 0; i < n; ++i) {
      const float x = in[i];
      // Saturated like the kernel; NaN at the low end.
      const float r = x == x ? roundf(x > 1e6f ? 1e6f : (x < -1e6f ? -1e6f : x)) : -1e6f;
      const int32_t q = static_cast<int32_t>(r) + zp;
      ok = ok && narrow[i] == (q < -128 ? -128 : (q > 127 ? 127 : q));
      ok = ok && wide[i] == (q < -32768 ? -32768 : (q > 32767 ? 32767 : q));
    }
    c.expect(ok, "quantize rounds half away from zero, saturates, NaN low");
  }
}

void check_scratch(Checks& c) {
  const auto extension = static_cast<k::Extension>(MOTE_FIRMWARE_EXTENSION);
  k::ConvShape conv{};
  conv.batches = 1;
  conv.input_h = conv.input_w = 32;
  conv.input_c = conv.filter_c = 3;
  conv.filter_h = conv.filter_w = 3;
  conv.output_h = conv.output_w = 32;
  conv.output_c = 16;
  conv.stride_h = conv.stride_w = 1;
  conv.pad_h = conv.pad_w = 1;
  conv.dilation_h = conv.dilation_w = 1;
  c.expect_equal(static_cast<int64_t>(k::cmsis_nn::conv_scratch_bytes(conv, extension)),
                for_extension(112, 112, 128), "conv 1x32x32x3 3x3x3->16 scratch");

  k::DepthwiseShape depthwise{};
  depthwise.batches = 1;
  depthwise.input_h = depthwise.input_w = 16;
  depthwise.input_c = depthwise.output_c = 32;
  depthwise.filter_h = depthwise.filter_w = 3;
  depthwise.output_h = depthwise.output_w = 16;
  depthwise.stride_h = depthwise.stride_w = 1;
  depthwise.pad_h = depthwise.pad_w = 1;
  depthwise.dilation_h = depthwise.dilation_w = 1;
  c.expect_equal(static_cast<int64_t>(k::cmsis_nn::depthwise_conv_scratch_bytes(depthwise, extension)),
                for_extension(0, 0, 4464), "depthwise 1x16x16x32 3x3 scratch");
  c.expect_equal(static_cast<int64_t>(k::cmsis_nn::fully_connected_buffer_bytes(10, extension)),
                for_extension(0, 0, 40), "fully connected 256->10 CMSIS-NN buffer");
  c.expect_equal(static_cast<int64_t>(k::cmsis_nn::average_pool_scratch_bytes(32, extension)),
                for_extension(0, 128, 0), "average pool 32 channels scratch");
}
#endif

// The kernels this CPU runs (conv2d and fully_connected pick the variant built for it: on the
// DSP cores the dsp kernels with their inline assembly) against the portable ones, on shapes whose
// accumulation depth is not a multiple of 8, so the assembly's groups of eight and the C tails
// both run. Deterministic data (a linear congruential generator), static buffers.
uint32_t lcg_state = 12345;
int32_t next_value(int32_t lo, int32_t hi) {
  lcg_state = lcg_state * 1664525u + 1013904223u;
  return lo + static_cast<int32_t>((lcg_state >> 8) % static_cast<uint32_t>(hi - lo + 1));
}
template <typename T, size_t n>
void fill(T (&v)[n], int32_t lo, int32_t hi) {
  for (auto& x : v) x = static_cast<T>(next_value(lo, hi));
}
bool same(const int8_t* a, const int8_t* b, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

int8_t in_buf[5 * 5 * 45];
int8_t filter_buf[7 * 3 * 3 * 45];
int32_t bias_buf[7];
int32_t mult_buf[7];
int32_t shift_buf[7];
int8_t want_buf[5 * 5 * 7];
int8_t got_buf[5 * 5 * 7];
int16_t col_buf[2 * 3 * 3 * 45];

void check_against_portable(Checks& c) {
  fill(in_buf, -128, 127);
  fill(filter_buf, -40, 40);
  fill(bias_buf, -3000, 3000);
  fill(mult_buf, 1 << 30, 0x7fffffff);
  fill(shift_buf, -12, -8);
  k::Scratch scratch{reinterpret_cast<int8_t*>(col_buf), sizeof(col_buf)};
  // 1x1 stride 1 (45 and 36 channels: the assembly from 32 on) and 3x3 pad 1 (depth 27 and 45).
  const int32_t convs[][3] = {{45, 1, 0}, {36, 1, 0}, {3, 3, 1}, {5, 3, 1}};
  for (const auto& cv : convs) {
    k::ConvParams p{};
    k::ConvShape& s = p.shape;
    s.batches = 1;
    s.input_h = s.input_w = s.output_h = s.output_w = 5;
    s.input_c = s.filter_c = cv[0];
    s.filter_h = s.filter_w = cv[1];
    s.pad_h = s.pad_w = cv[2];
    s.output_c = 7;
    s.stride_h = s.stride_w = s.dilation_h = s.dilation_w = 1;
    p.input_offset = 11;
    p.output_offset = -3;
    p.act_min = -128;
    p.act_max = 127;
    p.output_multiplier = mult_buf;
    p.output_shift = shift_buf;
    k::portable_conv2d(p, in_buf, filter_buf, bias_buf, want_buf, scratch);
    k::conv2d(p, in_buf, filter_buf, bias_buf, got_buf, scratch);
    c.expect(same(got_buf, want_buf, 5 * 5 * 7), cv[1] == 1 ? "conv 1x1 equals portable"
                                                           : "conv 3x3 equals portable");
  }
  // Depthwise 3x3 pad 1 over 7 channels (a group of four, then three), without and with dilation
  // (the assembly takes the whole windows without).
  for (int32_t dilation = 1; dilation <= 2; ++dilation) {
    k::DepthwiseConvParams p{};
    k::DepthwiseShape& s = p.shape;
    s.batches = 1;
    s.input_h = s.input_w = 5;
    s.output_h = s.output_w = 5 + 2 - 2 * dilation;
    s.input_c = s.output_c = 7;
    s.filter_h = s.filter_w = 3;
    s.pad_h = s.pad_w = 1;
    s.stride_h = s.stride_w = 1;
    s.dilation_h = s.dilation_w = dilation;
    p.input_offset = 7;
    p.output_offset = 2;
    p.act_min = -100;
    p.act_max = 110;
    p.output_multiplier = mult_buf;
    p.output_shift = shift_buf;
    const int32_t n = s.output_h * s.output_w * 7;
    k::portable_depthwise_conv2d(p, in_buf, filter_buf, bias_buf, want_buf, k::Scratch{nullptr, 0});
    k::depthwise_conv2d(p, in_buf, filter_buf, bias_buf, got_buf, k::Scratch{nullptr, 0});
    c.expect(same(got_buf, want_buf, n), "depthwise 3x3 equals portable");
  }
  // Depth 45 and 44 (groups of eight, then four, then one), 7 outputs (four rows, then three).
  const int32_t depths[] = {45, 44};
  for (int32_t n : depths) {
    k::FullyConnectedParams p{};
    p.batches = 2;
    p.input_depth = n;
    p.output_depth = 7;
    p.input_offset = -5;
    p.output_offset = 4;
    p.act_min = -128;
    p.act_max = 127;
    p.output_multiplier = mult_buf;
    p.output_shift = shift_buf;
    p.per_channel = true;
    k::portable_fully_connected(p, in_buf, filter_buf, bias_buf, want_buf);
    k::fully_connected(p, in_buf, filter_buf, bias_buf, got_buf);
    c.expect(same(got_buf, want_buf, 2 * 7), "fully connected equals portable");
  }
}

// RELU, RELU6, TANH, PRELU, SQUARED_DIFFERENCE and RSQRT, prepared and run on the target, against
// the values worked out by hand in their host tests (src/kernels/portable/*_test.cc).
template <size_t n>
bool equals(const int8_t* got, const int8_t (&want)[n]) {
  return same(got, want, static_cast<int32_t>(n));
}

void check_activations(Checks& c) {
  int8_t out[12];
  const int8_t relu_in[] = {-5, 0, 1, 30, 60, 61, 127};
  k::relu(k::prepare_relu(0.1f, 0, 0.05f, -128, false), relu_in, out, 7);
  const int8_t relu_want[] = {-128, -128, -126, -68, -8, -6, 126};
  c.expect(equals(out, relu_want), "relu requantizes and clamps at 0");
  k::relu(k::prepare_relu(0.1f, 0, 0.05f, -128, true), relu_in, out, 7);
  const int8_t relu6_want[] = {-128, -128, -126, -68, -8, -8, -8};
  c.expect(equals(out, relu6_want), "relu6 clamps at 6");

  const int8_t tanh_in[] = {0, 127, -128, 16, -16, 8, -8, 119};
  k::tanh(k::prepare_tanh(0.0625f, 0), tanh_in, out, 8);
  const int8_t tanh_want[] = {0, 127, -128, 97, -97, 59, -59, 127};
  c.expect(equals(out, tanh_want), "tanh fixed point");

  const int8_t prelu_in[] = {-8, -8, -8, -8, 5, 5, 5, 5, -128, -1, -3, -128};
  const int8_t alpha[] = {16, 32, 63, -32};
  const int32_t prelu_dims[] = {1, 3, 4};
  const int32_t alpha_dims[] = {4};
  k::BroadcastShape shape{};
  k::prepare_broadcast_shape(prelu_dims, 3, alpha_dims, 1, &shape);
  k::prelu(k::prepare_prelu(1.0f, 0, 1.0f / 64, 0, 1.0f, 0), shape, prelu_in, alpha, out);
  const int8_t prelu_want[] = {-2, -4, -8, 4, 5, 5, 5, 5, -32, -1, -3, 64};
  c.expect(equals(out, prelu_want), "prelu per-channel alpha");

  const int8_t sd_a[] = {15, 25, 10, 5, 15, 25, 10, 5};
  const int8_t sd_b[] = {5, 0, 0, -1};
  const int32_t a_dims[] = {2, 4};
  const int32_t b_dims[] = {4};
  k::prepare_broadcast_shape(a_dims, 2, b_dims, 1, &shape);
  k::squared_difference(k::prepare_squared_difference(0.1f, 5, 0.2f, 0, 0.01f, -100), shape, sd_a,
                        sd_b, out);
  const int8_t sd_want[] = {-100, 127, -75, -96, -100, 127, -75, -96};
  c.expect(equals(out, sd_want), "squared difference broadcast");

  const int8_t rsqrt_in[] = {-127, -124, -112, -64, 127, -126, -128};
  k::rsqrt(k::prepare_rsqrt(1.0f / 64, -128, 1.0f / 16, -128), rsqrt_in, out, 7);
  const int8_t rsqrt_want[] = {0, -64, -96, -112, -120, -37, 127};
  c.expect(equals(out, rsqrt_want), "rsqrt fixed point");
}

// SUM, REDUCE_MAX, ARG_MAX, ARG_MIN and RESIZE_BILINEAR on values worked out by hand from
// TFLite's definitions (the kernels' tests on the host hold the derivations).
void check_reductions_and_resize(Checks& c) {
  static int8_t in[8] = {1, 5, 5, 2, -3, -3, -9, -3};
  static int8_t out8[4];
  static int32_t out32[4];
  const int32_t dims[2] = {2, 4};
  const int32_t last[1] = {1};
  // SUM of each row, scale 0.5 into 1.0: 13 * 0.5 = 6.5 -> 7, -18 * 0.5 -> -9.
  const k::QuantizedMultiplier half = k::sum_requant(opaque(1) * 0.5f, 1.0f);
  k::mean(k::prepare_mean(2, dims, 1, last, 0, 0, half.multiplier, half.shift), in, out8);
  c.expect_equal(out8[0], 7, "sum row 0 (6.5 rounds away)");
  c.expect_equal(out8[1], -9, "sum row 1");
  k::reduce_max(k::prepare_mean(2, dims, 1, last, 0, 0, 0, 0), in, out8);
  c.expect(out8[0] == 5 && out8[1] == -3, "reduce_max rows");
  k::arg_min_max(k::prepare_arg_min_max(2, dims, opaque(1), false), in, out32);
  c.expect(out32[0] == 1 && out32[1] == 0, "arg_max rows (first of ties)");
  k::arg_min_max(k::prepare_arg_min_max(2, dims, opaque(1), true), in, out32);
  c.expect(out32[0] == 0 && out32[1] == 2, "arg_min rows");
  // 1x2 {0, 100} -> 1x4: 0, 50, 100, 100; half-pixel 0, 25, 75, 100; align corners 0, 33, 67, 100.
  static int8_t row[2] = {0, 100};
  const int32_t want[3][4] = {{0, 50, 100, 100}, {0, 25, 75, 100}, {0, 33, 67, 100}};
  const char* names[3] = {"resize_bilinear 2 -> 4", "resize_bilinear half-pixel",
                          "resize_bilinear align corners"};
  for (int32_t option = 0; option < 3; ++option) {
    k::resize_bilinear(k::prepare_resize_bilinear(1, 1, opaque(2), 1, 1, 4, option == 2,
                                                  option == 1),
                       row, out8);
    c.expect(out8[0] == want[option][0] && out8[1] == want[option][1] &&
                 out8[2] == want[option][2] && out8[3] == want[option][3],
             names[option]);
  }
}

// SVDF, two time steps of the example worked out by hand in svdf_test.cc (feature requant 0.5,
// time requant 0.25): the state carried from the first call to the second.
void check_svdf(Checks& c) {
  k::SvdfParams p{};
  p.batches = 1;
  p.input_size = 2;
  p.filters = 2;
  p.memory = 2;
  p.rank = 1;
  p.input_zero_point = opaque(1);
  p.output_zero_point = -3;
  p.feature_multiplier = 1 << 30;
  p.feature_shift = 0;
  p.time_multiplier = 1 << 30;
  p.time_shift = -1;
  static const int8_t wf[] = {1, 2, 3, -1};
  static const int16_t wt[] = {2, 3, 1, -2};
  static const int32_t bias[] = {10, 0};
  static int16_t state[4];
  static int32_t scratch[4];
  int8_t out[2];
  const int8_t x1[] = {3, -1}, x2[] = {1, 1};
  k::svdf(p, x1, wf, wt, bias, state, out, scratch);
  c.expect(out[0] == -1 && out[1] == -5 && state[1] == -1 && state[3] == 4, "svdf step 1");
  k::svdf(p, x2, wf, wt, bias, state, out, scratch);
  c.expect(out[0] == -1 && out[1] == -2 && state[0] == -1 && state[2] == 4, "svdf step 2");
}

// BATCH_MATMUL on this CPU: the host test's hand-checked product (batch_matmul_test.cc), from
// plain and from transposed storage (adj_x, adj_y), and a broadcast batch.
void check_batch_matmul(Checks& c) {
  static const int8_t lhs[] = {1, 2, 3, 4, 5, 6}, rhs[] = {0, 1, 2, 3, 4, 5};
  static const int8_t lhs_t[] = {1, 4, 2, 5, 3, 6}, rhs_t[] = {0, 2, 4, 1, 3, 5};
  static const int8_t want[] = {10, 11, 23, 29};
  const int32_t two_by_three[] = {2, 3}, three_by_two[] = {3, 2};
  for (int adj = 0; adj < 2; ++adj) {
    k::BatchMatMulParams p{};
    int32_t dims[k::kMaxBatchMatMulRank], rank = 0;
    const bool ok = k::prepare_batch_matmul_shape(adj ? three_by_two : two_by_three, 2,
                                                  adj ? two_by_three : three_by_two, 2, adj != 0,
                                                  adj != 0, &p.shape, dims, &rank);
    p.lhs_offset = -1;
    p.rhs_offset = 1;
    p.output_offset = 3;
    p.output_multiplier = opaque(1 << 30);
    p.output_shift = 0;
    p.act_min = -128;
    p.act_max = 127;
    int8_t out[4] = {0, 0, 0, 0};
    if (ok) k::batch_matmul(p, adj ? lhs_t : lhs, adj ? rhs_t : rhs, out);
    c.expect(ok && same(out, want, 4), adj ? "batch matmul adj_x adj_y hand-checked"
                                           : "batch matmul hand-checked");
  }
  // lhs [2,1,1,2] x rhs [3,2,1] -> [2,3,1,1].
  static const int8_t a[] = {1, 2, 3, 4}, b[] = {1, 0, 0, 1, 1, 1};
  static const int8_t want_b[] = {1, 2, 3, 3, 4, 7};
  const int32_t da[] = {2, 1, 1, 2}, db[] = {3, 2, 1};
  k::BatchMatMulParams p{};
  int32_t dims[k::kMaxBatchMatMulRank], rank = 0;
  const bool ok = k::prepare_batch_matmul_shape(da, 4, db, 3, false, false, &p.shape, dims, &rank);
  p.output_multiplier = opaque(1 << 30);
  p.output_shift = 1;
  p.act_min = -128;
  p.act_max = 127;
  int8_t out[6] = {};
  if (ok) k::batch_matmul(p, a, b, out);
  c.expect(ok && rank == 4 && same(out, want_b, 6), "batch matmul broadcast hand-checked");
}

// The LSTM kernel on this CPU: the host test's two hand-checked steps (lstm_test.cc).
void check_lstm(Checks& c) {
  static const int8_t zero = 0;
  static const int32_t biases[4] = {0, 0, 4096, 0};
  k::LstmParams p{};
  p.batch_size = p.input_size = p.hidden_size = 1;
  p.time_steps = 2;
  p.time_major = true;
  p.hidden_zero_point = 3;
  for (int g = 0; g < 4; ++g) p.gates[g] = {&zero, &zero, &biases[g], opaque(1 << 30), 1, 1 << 30, 1};
  p.forget_to_cell_multiplier = 1 << 30;
  p.forget_to_cell_shift = -14;
  p.input_to_cell_multiplier = 1 << 30;
  p.input_to_cell_shift = -15;
  p.cell_clip = 32767;
  p.cell_scale_power = -15;
  p.output_multiplier = 1 << 30;
  p.output_shift = -22;
  static int8_t hidden[1], output[2];
  static int16_t cell[1], scratch[4];
  static const int8_t input[2] = {0, 0};
  static const int8_t want[2] = {15, 21};
  const bool ok = k::lstm_params_ok(p) && k::lstm_scratch_bytes(p) == sizeof(scratch);
  k::lstm_reset_state(p, hidden, cell);
  if (ok) k::lstm(p, input, hidden, cell, output, k::Scratch{reinterpret_cast<int8_t*>(scratch), sizeof(scratch)});
  c.expect(ok && same(output, want, 2) && cell[0] == 9359 && hidden[0] == 21,
           "lstm two steps hand-checked");
  c.expect_equal(k::lstm_logistic16(static_cast<int16_t>(opaque(4096))), 23956, "lstm sigmoid(1)");
  c.expect_equal(k::lstm_tanh16(static_cast<int16_t>(opaque(4096)), 0), 24956, "lstm tanh(1)");
}

}  // namespace

// The data-movement kernels (strided_copy for STRIDED_SLICE .. SPACE_TO_DEPTH, gather) on the
// target: a reversed, strided 3-D walk and a DEPTH_TO_SPACE-shaped 6-D one against values worked
// out by hand, and a gather with an out-of-range index.
int8_t move_in[4 * 6];
int8_t move_out[4 * 6 + 2];

void check_data_movement(Checks& c) {
  for (int i = 0; i < 24; ++i) move_in[i] = static_cast<int8_t>(opaque(i));
  // [4,6] = 0..23, rows 3 and 1 (stride -2), columns 5, 2 (stride -3): 23 20 11 8.
  k::StridedCopyParams p{};
  p.rank = 2;
  p.dims[0] = 2;
  p.dims[1] = 2;
  p.input_strides[0] = -12;
  p.input_strides[1] = -3;
  p.output_strides[0] = 2;
  p.output_strides[1] = 1;
  move_out[4] = 99;
  k::strided_copy(k::simplify_strided_copy(p), move_in + 23, move_out);
  c.expect(move_out[0] == 23 && move_out[1] == 20 && move_out[2] == 11 && move_out[3] == 8 &&
               move_out[4] == 99,
           "strided_copy reversed 2x2");
  // DEPTH_TO_SPACE of [1,1,2,4] block 2: the 6-D walk [1,1,2,2,2,1] -> 0 1 4 5 2 3 6 7.
  k::StridedCopyParams d{};
  d.rank = 6;
  const int32_t dims[6] = {1, 1, 2, 2, 2, 1}, in_strides[6] = {8, 8, 2, 4, 1, 1};
  int32_t out_stride = 1;
  for (int i = 5; i >= 0; --i) {
    d.dims[i] = dims[i];
    d.input_strides[i] = in_strides[i];
    d.output_strides[i] = out_stride;
    out_stride *= dims[i];
  }
  k::strided_copy(k::simplify_strided_copy(d), move_in, move_out);
  const int8_t want[8] = {0, 1, 4, 5, 2, 3, 6, 7};
  bool same = true;
  for (int i = 0; i < 8; ++i) same = same && move_out[i] == want[i];
  c.expect(same, "strided_copy depth_to_space 6-D");
  // GATHER rows 3, 9 (outside: fill -5), 0 of [4,6].
  const int32_t indices[3] = {opaque(3), opaque(9), opaque(0)};
  k::gather(k::GatherParams{1, 1, 4, 6, 3, -5}, move_in, indices, move_out);
  c.expect(move_out[0] == 18 && move_out[5] == 23 && move_out[6] == -5 && move_out[11] == -5 &&
               move_out[12] == 0 && move_out[17] == 5,
           "gather rows with a fill");
}

int main() {
  using namespace mote::platform;
  Line().text("kernels on ").text(cpu_name()).text(", sources: ").text(MOTE_KERNEL_SOURCES).end();
  Checks checks;
  check_inline_helpers(checks);
#if defined(MOTE_KERNEL_SOURCE_QUANTIZATION)
  check_quantization(checks);
#else
  print("  skip quantization.cc not built yet\n");
#endif
#if defined(MOTE_KERNEL_SOURCE_SCRATCH)
  check_quantize(checks);
  check_scratch(checks);
#else
  print("  skip scratch.cc not built yet\n");
#endif
  check_against_portable(checks);
  check_activations(checks);
  check_reductions_and_resize(checks);
  check_data_movement(checks);
  check_svdf(checks);
  check_batch_matmul(checks);
  check_lstm(checks);
  Line().text("static_ram ").unsigned_number(static_ram_bytes()).text(", stack_peak ").unsigned_number(stack_peak_bytes()).end();
  Line().text(checks.failed == 0 ? "kernels: ok" : "kernels: FAILED").end();
  return checks.failed == 0 ? 0 : 1;
}
