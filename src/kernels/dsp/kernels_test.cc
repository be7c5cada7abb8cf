// The dsp kernels (on the emulated instructions here) against the portable kernels, bit for bit:
// randomized shapes with odd channel counts, tails, padding, strides, dilation, per-channel
// requantization with left and right shifts; and the requantization step at its edges.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "dsp/kernels.h"
#include "dsp/requantize.h"
#include "portable/conv_internal.h"
#include "portable/window.h"

namespace mote::kernels {
namespace {

std::mt19937& rng() {
  static std::mt19937 r(12);
  return r;
}
int32_t uniform(int32_t lo, int32_t hi) { return std::uniform_int_distribution<int32_t>(lo, hi)(rng()); }

template <typename T>
std::vector<T> random_values(size_t n, int32_t lo, int32_t hi) {
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(uniform(lo, hi));
  return v;
}

// Per-channel requantization as a compiler writes it: Q31 mantissas, mostly right shifts.
struct Requant {
  std::vector<int32_t> multiplier, shift;
  explicit Requant(int32_t channels) {
    for (int32_t c = 0; c < channels; ++c) {
      multiplier.push_back(uniform(1 << 30, INT32_MAX));
      shift.push_back(uniform(-12, 1));
    }
  }
};

TEST(DspRequantize, EqualsPortableAtTheEdges) {
  const int32_t accs[] = {INT32_MIN, INT32_MIN + 1, -(1 << 30) - 1, -(1 << 30), -65536, -3, -2, -1,
                          0, 1, 2, 3, 65535, 1 << 30, INT32_MAX - 256, INT32_MAX};
  const int32_t mults[] = {0, 1, 1 << 30, (1 << 30) + 1, 1518500250, INT32_MAX};
  for (int32_t shift = -31; shift <= 0; ++shift) {
    for (int32_t m : mults) {
      for (int32_t acc : accs) {
        ASSERT_EQ(dsp::requantize(acc, m, shift), internal::requantize_fast(acc, m, shift))
            << acc << " * " << m << " shift " << shift;
      }
    }
  }
  for (int i = 0; i < 200000; ++i) {
    const int32_t acc = static_cast<int32_t>(rng()());
    const int32_t m = uniform(0, INT32_MAX);
    const int32_t shift = uniform(-31, 0);
    ASSERT_EQ(dsp::requantize(acc, m, shift), internal::requantize_fast(acc, m, shift))
        << acc << " * " << m << " shift " << shift;
  }
}

// Output size for a window (TFLite's, padding given).
int32_t out_size(int32_t in, int32_t k, int32_t stride, int32_t pad, int32_t dilation) {
  const int32_t eff = (k - 1) * dilation + 1;
  return (in + 2 * pad - eff) / stride + 1;
}

// The output size of a conv or depthwise shape; false when it is empty.
template <typename Shape>
bool set_output_size(Shape& s) {
  s.output_h = out_size(s.input_h, s.filter_h, s.stride_h, s.pad_h, s.dilation_h);
  s.output_w = out_size(s.input_w, s.filter_w, s.stride_w, s.pad_w, s.dilation_w);
  return s.output_h >= 1 && s.output_w >= 1;
}

// Random zero points and requantization (rq's), a narrowed activation range every fourth iteration.
template <typename Params>
void set_quantization(Params& p, const Requant& rq, int iter) {
  p.input_offset = uniform(-127, 128);
  p.output_offset = uniform(-128, 127);
  p.act_min = iter % 4 == 0 ? uniform(-128, 0) : -128;
  p.act_max = iter % 4 == 0 ? uniform(1, 127) : 127;
  p.output_multiplier = rq.multiplier.data();
  p.output_shift = rq.shift.data();
}

// A random conv or depthwise operator of a shape (its output size set): parameters (pointing
// into rq), input and bias.
template <typename Params>
struct RandomCase {
  Requant rq;
  Params p{};
  std::vector<int8_t> input;
  std::vector<int32_t> bias;
  template <typename Shape>
  RandomCase(const Shape& s, int iter) : rq(s.output_c) {
    p.shape = s;
    set_quantization(p, rq, iter);
    input = random_values<int8_t>(size_t(s.batches) * s.input_h * s.input_w * s.input_c, -128, 127);
    bias = random_values<int32_t>(s.output_c, -5000, 5000);
  }
  RandomCase(const RandomCase&) = delete;
  RandomCase& operator=(const RandomCase&) = delete;
};

TEST(DspConv, EqualsPortableOnRandomShapes) {
  int ran = 0;
  for (int iter = 0; iter < 300; ++iter) {
    ConvShape s{};
    const bool pointwise = iter % 3 == 0;
    s.batches = uniform(1, 2);
    s.input_h = uniform(1, 9);
    s.input_w = uniform(1, 9);
    s.input_c = uniform(1, 21);
    s.filter_c = s.input_c;
    s.filter_h = pointwise ? 1 : uniform(1, std::min(4, s.input_h));
    s.filter_w = pointwise ? 1 : uniform(1, std::min(4, s.input_w));
    s.output_c = uniform(1, 13);
    if (!pointwise && iter % 4 == 2) {
      // Grouped: 2 to 4 groups of 1 to 8 channels (grouped layers always gather columns).
      const int32_t groups = uniform(2, 4);
      s.filter_c = uniform(1, 8);
      s.input_c = groups * s.filter_c;
      s.output_c = groups * uniform(1, 4);
    }
    s.stride_h = uniform(1, 3);
    s.stride_w = uniform(1, 3);
    s.dilation_h = pointwise || iter % 5 != 1 ? 1 : 2;
    s.dilation_w = pointwise || iter % 7 != 1 ? 1 : 2;
    if ((s.filter_h - 1) * s.dilation_h >= s.input_h) s.dilation_h = 1;
    if ((s.filter_w - 1) * s.dilation_w >= s.input_w) s.dilation_w = 1;
    s.pad_h = pointwise ? 0 : uniform(0, s.filter_h - 1);
    s.pad_w = pointwise ? 0 : uniform(0, s.filter_w - 1);
    if (!set_output_size(s)) continue;
    ++ran;
    const RandomCase<ConvParams> rc(s, iter);
    const auto& p = rc.p;
    const auto& input = rc.input;
    const auto& bias = rc.bias;
    const auto filter = random_values<int8_t>(size_t(s.output_c) * s.filter_h * s.filter_w * s.filter_c, -128, 127);
    const size_t out_n = size_t(s.batches) * s.output_h * s.output_w * s.output_c;
    ASSERT_TRUE(dsp::conv_handles(s));
    std::vector<int8_t> scratch(dsp::conv_scratch_bytes(s) + 16);
    std::vector<int8_t> want(out_n), got(out_n, 0x55);
    portable_conv2d(p, input.data(), filter.data(), bias.data(), want.data(), Scratch{nullptr, 0});
    dsp::conv2d(p, input.data(), filter.data(), iter % 6 == 5 ? nullptr : bias.data(), got.data(),
                Scratch{scratch.data(), dsp::conv_scratch_bytes(s)});
    if (iter % 6 == 5) {
      portable_conv2d(p, input.data(), filter.data(), nullptr, want.data(), Scratch{nullptr, 0});
    }
    ASSERT_EQ(got, want) << "iteration " << iter << ": in " << s.input_h << "x" << s.input_w << "x"
                         << s.input_c << " filter " << s.filter_h << "x" << s.filter_w << " out c "
                         << s.output_c << " stride " << s.stride_h << "," << s.stride_w << " pad "
                         << s.pad_h << "," << s.pad_w << " dilation " << s.dilation_h << ","
                         << s.dilation_w;
  }
  EXPECT_GT(ran, 200);
}

TEST(DspDepthwise, EqualsPortableOnRandomShapes) {
  int ran = 0;
  for (int iter = 0; iter < 300; ++iter) {
    DepthwiseShape s{};
    s.batches = uniform(1, 2);
    s.input_h = uniform(1, 9);
    s.input_w = uniform(1, 9);
    s.input_c = uniform(1, 19);
    const int32_t m = iter % 5 == 4 ? uniform(2, 9) : 1;  // tails of the blocks of four
    s.output_c = s.input_c * m;
    const bool k3 = iter % 2 == 0;
    s.filter_h = k3 ? 3 : uniform(1, 5);
    s.filter_w = k3 ? 3 : uniform(1, 5);
    s.stride_h = uniform(1, 2);
    s.stride_w = uniform(1, 2);
    s.dilation_h = iter % 7 == 3 ? 2 : 1;
    s.dilation_w = iter % 11 == 3 ? 2 : 1;
    s.pad_h = uniform(0, s.filter_h - 1);
    s.pad_w = uniform(0, s.filter_w - 1);
    if (!set_output_size(s)) continue;
    ++ran;
    const RandomCase<DepthwiseConvParams> rc(s, iter);
    const auto& p = rc.p;
    const auto& input = rc.input;
    const auto& bias = rc.bias;
    const auto filter = random_values<int8_t>(size_t(s.filter_h) * s.filter_w * s.output_c, -128, 127);
    const int32_t* b = iter % 6 == 5 ? nullptr : bias.data();
    const size_t out_n = size_t(s.batches) * s.output_h * s.output_w * s.output_c;
    std::vector<int8_t> want(out_n), got(out_n, 0x55);
    portable_depthwise_conv2d(p, input.data(), filter.data(), b, want.data(), Scratch{nullptr, 0});
    ASSERT_TRUE(dsp::depthwise_conv_handles(s));
    EXPECT_STREQ(built_depthwise_conv_kernel_variant(s), "dsp");
    depthwise_conv2d(p, input.data(), filter.data(), b, got.data(), Scratch{nullptr, 0});
    ASSERT_EQ(got, want) << "iteration " << iter << ": in " << s.input_h << "x" << s.input_w << "x"
                         << s.input_c << " filter " << s.filter_h << "x" << s.filter_w << " m " << m;
  }
  EXPECT_GT(ran, 200);
}

// A column (1-D windows along the height over a map one pixel wide) runs as the row of the same
// bytes (internal::depthwise_column_as_row): any height, stride, dilation, padding, multiplier.
TEST(DspDepthwise, ColumnsEqualPortable) {
  int ran = 0;
  for (int iter = 0; iter < 200; ++iter) {
    DepthwiseShape s{};
    s.batches = uniform(1, 2);
    s.input_h = uniform(1, 30);
    s.input_w = 1;
    s.input_c = uniform(1, 40);
    const int32_t m = iter % 5 == 4 ? uniform(2, 4) : 1;
    s.output_c = s.input_c * m;
    s.filter_h = uniform(1, 15);
    s.filter_w = 1;
    s.stride_h = uniform(1, 2);
    s.stride_w = 1;
    s.dilation_h = iter % 4 == 3 ? 2 : 1;
    s.dilation_w = 1;
    s.pad_h = uniform(0, s.filter_h - 1);
    s.pad_w = 0;
    if (!set_output_size(s)) continue;
    if (s.input_h > 1) ASSERT_EQ(internal::depthwise_column_as_row(s).input_w, s.input_h);
    ++ran;
    const RandomCase<DepthwiseConvParams> rc(s, iter);
    const auto filter = random_values<int8_t>(size_t(s.filter_h) * s.output_c, -128, 127);
    const int32_t* b = iter % 6 == 5 ? nullptr : rc.bias.data();
    const size_t out_n = size_t(s.batches) * s.output_h * s.output_c;
    std::vector<int8_t> want(out_n), got(out_n, 0x55);
    portable_depthwise_conv2d(rc.p, rc.input.data(), filter.data(), b, want.data(),
                              Scratch{nullptr, 0});
    ASSERT_TRUE(dsp::depthwise_conv2d_no_fallback(rc.p, rc.input.data(), filter.data(), b,
                                                  got.data(), Scratch{nullptr, 0}));
    ASSERT_EQ(got, want) << "iteration " << iter << ": in " << s.input_h << "x1x" << s.input_c
                         << " filter " << s.filter_h << " m " << m << " stride " << s.stride_h
                         << " pad " << s.pad_h << " dilation " << s.dilation_h;
  }
  EXPECT_GT(ran, 100);
}

// One input channel with a multiplier (depthwise_conv2d_one_input): dot products along the window
// rows against the filter rearranged in the planned scratch (guard bytes after it stay
// untouched); the general multiplier path gives the same bytes.
TEST(DspDepthwise, OneInputChannelEqualsPortable) {
  int ran = 0;
  for (int iter = 0; iter < 300; ++iter) {
    DepthwiseShape s{};
    s.batches = uniform(1, 2);
    s.input_h = uniform(1, 12);
    s.input_w = uniform(1, 24);
    s.input_c = 1;
    s.output_c = uniform(2, 19);
    s.filter_h = uniform(1, 10);
    s.filter_w = uniform(1, 20);
    s.stride_h = uniform(1, 2);
    s.stride_w = uniform(1, 3);
    s.dilation_h = iter % 7 == 3 ? 2 : 1;
    s.dilation_w = 1;
    s.pad_h = uniform(0, s.filter_h - 1);
    s.pad_w = uniform(0, s.filter_w - 1);
    if (!set_output_size(s)) continue;
    ++ran;
    const RandomCase<DepthwiseConvParams> rc(s, iter);
    const auto& p = rc.p;
    const auto filter =
        random_values<int8_t>(size_t(s.filter_h) * s.filter_w * s.output_c, -128, 127);
    const int32_t* b = iter % 6 == 5 ? nullptr : rc.bias.data();
    const size_t out_n = size_t(s.batches) * s.output_h * s.output_w * s.output_c;
    std::vector<int8_t> want(out_n), got(out_n, 0x55), general(out_n, 0x55);
    portable_depthwise_conv2d(p, rc.input.data(), filter.data(), b, want.data(),
                              Scratch{nullptr, 0});
    const size_t planned = dsp::depthwise_conv_scratch_bytes(s);
    ASSERT_EQ(planned > 0, dsp::depthwise_single_input(s));
    ASSERT_EQ(planned > 0, s.filter_h * ((s.filter_w + 3) / 4 * 4) <= 256);
    std::vector<int8_t> scratch(planned + 16, 0x5a);
    // The dsp kernel takes every layer it plans scratch for, and no other.
    EXPECT_EQ(dsp::depthwise_conv2d_one_input(p, rc.input.data(), filter.data(), b, got.data(),
                                              Scratch{scratch.data(), planned}),
              planned > 0);
    depthwise_conv2d_one_input(p, rc.input.data(), filter.data(), b, got.data(),
                               Scratch{scratch.data(), planned});
    depthwise_conv2d(p, rc.input.data(), filter.data(), b, general.data(),
                     Scratch{scratch.data(), planned});
    ASSERT_EQ(got, want) << "iteration " << iter << ": in " << s.input_h << "x" << s.input_w
                         << " filter " << s.filter_h << "x" << s.filter_w << " out c "
                         << s.output_c << " stride " << s.stride_h << "," << s.stride_w << " pad "
                         << s.pad_h << "," << s.pad_w;
    ASSERT_EQ(general, want) << "iteration " << iter;
    EXPECT_EQ(std::vector<int8_t>(scratch.begin() + planned, scratch.end()),
              std::vector<int8_t>(16, 0x5a));
  }
  EXPECT_GT(ran, 150);
}

TEST(DspFullyConnected, EqualsPortableOnRandomShapes) {
  for (int iter = 0; iter < 300; ++iter) {
    FullyConnectedParams p{};
    p.batches = uniform(1, 3);
    p.input_depth = uniform(1, 70);
    p.output_depth = uniform(1, 11);
    p.filter_offset = iter % 5 == 2 ? uniform(-10, 10) : 0;
    p.per_channel = iter % 2 == 0;
    const Requant rq(p.per_channel ? p.output_depth : 1);
    set_quantization(p, rq, iter);
    const auto input = random_values<int8_t>(size_t(p.batches) * p.input_depth, -128, 127);
    const auto filter = random_values<int8_t>(size_t(p.output_depth) * p.input_depth, -127, 127);
    const auto bias = random_values<int32_t>(p.output_depth, -5000, 5000);
    const int32_t* b = iter % 6 == 5 ? nullptr : bias.data();
    std::vector<int32_t> sums(p.output_depth);
    fully_connected_kernel_sums(p, filter.data(), b, sums.data());
    const size_t out_n = size_t(p.batches) * p.output_depth;
    std::vector<int8_t> want(out_n), got(out_n, 0x55), got_sums(out_n, 0x55);
    portable_fully_connected(p, input.data(), filter.data(), b, want.data());
    dsp::fully_connected(p, input.data(), filter.data(), b, got.data());
    FullyConnectedParams with_sums = p;
    with_sums.kernel_sums = sums.data();
    dsp::fully_connected(with_sums, input.data(), filter.data(), nullptr, got_sums.data());
    ASSERT_EQ(got, want) << "iteration " << iter;
    ASSERT_EQ(got_sums, want) << "iteration " << iter << " (kernel sums)";
  }
}

TEST(DspAveragePool, EqualsPortableOnRandomShapes) {
  for (int iter = 0; iter < 200; ++iter) {
    const int32_t in_h = uniform(1, 20), in_w = uniform(1, 20);
    const int32_t fh = uniform(1, in_h), fw = uniform(1, in_w);
    const int32_t channels = uniform(1, 13);
    const bool narrowed = iter % 4 == 0;
    const PoolParams p = prepare_pool(uniform(1, 2), in_h, in_w, channels, fh, fw, uniform(1, 3),
                                      uniform(1, 3), iter % 2 == 0, narrowed ? uniform(-128, 0) : -128,
                                      narrowed ? uniform(1, 127) : 127);
    // Extremes every third iteration: all -128 or all 127 reach the int16 lanes' limits at 256.
    const int32_t lo = iter % 3 == 0 ? (iter % 2 ? 127 : -128) : -128;
    const int32_t hi = iter % 3 == 0 ? lo : 127;
    const auto input = random_values<int8_t>(size_t(p.batches) * in_h * in_w * channels, lo, hi);
    const size_t out_n = size_t(p.batches) * p.output_h * p.output_w * channels;
    std::vector<int8_t> want(out_n), got(out_n, 0x55);
    portable_average_pool(p, input.data(), want.data(), Scratch{nullptr, 0});
    dsp::average_pool(p, input.data(), got.data(), Scratch{nullptr, 0});
    ASSERT_EQ(got, want) << "iteration " << iter << ": in " << in_h << "x" << in_w << "x" << channels
                         << " window " << fh << "x" << fw;
  }
  PoolParams big = prepare_pool(1, 17, 16, 4, 17, 16, 1, 1, false, -128, 127);  // 272 elements
  EXPECT_FALSE(dsp::average_pool_handles(big));
  big.filter_h = 16;  // 256
  EXPECT_TRUE(dsp::average_pool_handles(big));
  EXPECT_STREQ(built_average_pool_kernel_variant(big), "dsp");
  // A window whose area wraps to 0 in 32 bits is not small (a hostile model's filter).
  PoolParams huge = big;
  huge.filter_h = 65536;
  huge.filter_w = 65536;
  EXPECT_FALSE(dsp::average_pool_handles(huge));
}

TEST(DspMaxPool, EqualsPortableOnRandomShapes) {
  for (int iter = 0; iter < 200; ++iter) {
    const int32_t in_h = uniform(1, 12), in_w = uniform(1, 12);
    const int32_t fh = uniform(1, in_h), fw = uniform(1, in_w);
    const int32_t channels = uniform(1, 13);
    const bool narrowed = iter % 3 == 0;
    const PoolParams p = prepare_pool(uniform(1, 2), in_h, in_w, channels, fh, fw, uniform(1, 3),
                                      uniform(1, 3), iter % 2 == 0, narrowed ? uniform(-128, 0) : -128,
                                      narrowed ? uniform(1, 127) : 127);
    const auto input = random_values<int8_t>(size_t(p.batches) * in_h * in_w * channels, -128, 127);
    const size_t out_n = size_t(p.batches) * p.output_h * p.output_w * channels;
    std::vector<int8_t> want(out_n), got(out_n, 0x55);
    portable_max_pool(p, input.data(), want.data());
    dsp::max_pool(p, input.data(), got.data());
    ASSERT_EQ(got, want) << "iteration " << iter << ": in " << in_h << "x" << in_w << "x" << channels
                         << " window " << fh << "x" << fw;
  }
  EXPECT_STREQ(built_max_pool_kernel_variant(PoolParams{}), "dsp");
  EXPECT_STREQ(max_pool_kernel_variant(PoolParams{}, Extension::kScalar), "portable");
}

// Every leading and trailing padding of one window axis that a folded PAD can give (a PAD of any
// rows before and after, then VALID or SAME): leading in [0, extent), trailing in (-stride,
// extent), as the runtime's load check accepts; the output size each gives over `in` rows.
struct FoldedAxis {
  int32_t pad, output;
};
std::vector<FoldedAxis> folded_axes(int32_t in, int32_t extent, int32_t stride) {
  std::vector<FoldedAxis> axes;
  for (int32_t lead = 0; lead < extent; ++lead) {
    for (int32_t trail = 1 - stride; trail < extent; ++trail) {
      const int32_t span = in + lead + trail - extent;
      if (span >= 0 && span % stride == 0) axes.push_back({lead, span / stride + 1});
    }
  }
  return axes;
}

// A k x k window of `stride` over an in_h x in_w input (batch 1) with the axes' padding and
// output sizes; channels left to the caller.
template <typename Shape>
Shape folded_window(int32_t in_h, int32_t in_w, int32_t k, int32_t stride, const FoldedAxis& ah,
                    const FoldedAxis& aw) {
  Shape s{};
  s.batches = 1;
  s.input_h = in_h;
  s.input_w = in_w;
  s.filter_h = s.filter_w = k;
  s.stride_h = s.stride_w = stride;
  s.dilation_h = s.dilation_w = 1;
  s.pad_h = ah.pad;
  s.pad_w = aw.pad;
  s.output_h = ah.output;
  s.output_w = aw.output;
  return s;
}

// Asymmetric padding (more before than after, or after only: PyTorch's and Keras's explicit PADs
// before stride-2 layers), 3x3 to 7x7 windows, strides 1 and 2: every variant as portable.
TEST(DspKernels, EqualsPortableWithFoldedPadding) {
  int ran = 0;
  for (const int32_t k : {3, 5, 7}) {
    for (const int32_t stride : {1, 2}) {
      const int32_t in_h = 9, in_w = 8;
      for (const FoldedAxis& ah : folded_axes(in_h, k, stride)) {
        for (const FoldedAxis& aw : folded_axes(in_w, k, stride)) {
          if ((ah.pad + aw.pad + ran) % 3 != 0) continue;  // a third of the pairs, all leads
          ++ran;
          auto d = folded_window<DepthwiseShape>(in_h, in_w, k, stride, ah, aw);
          d.input_c = d.output_c = 1 + ran % 9;
          const RandomCase<DepthwiseConvParams> dc(d, ran);
          const auto dw = random_values<int8_t>(size_t(k) * k * d.output_c, -128, 127);
          const size_t dn = size_t(d.output_h) * d.output_w * d.output_c;
          std::vector<int8_t> want(dn), got(dn, 0x55);
          portable_depthwise_conv2d(dc.p, dc.input.data(), dw.data(), dc.bias.data(), want.data(),
                                    Scratch{nullptr, 0});
          depthwise_conv2d(dc.p, dc.input.data(), dw.data(), dc.bias.data(), got.data(),
                           Scratch{nullptr, 0});
          ASSERT_EQ(got, want) << "depthwise " << k << "x" << k << " stride " << stride << " pad "
                               << ah.pad << "," << aw.pad << " out " << ah.output << "x"
                               << aw.output;

          auto c = folded_window<ConvShape>(in_h, in_w, k, stride, ah, aw);
          c.input_c = c.filter_c = 1 + ran % 5;
          c.output_c = 1 + ran % 7;
          const RandomCase<ConvParams> cc(c, ran);
          const auto cw = random_values<int8_t>(size_t(c.output_c) * k * k * c.filter_c, -128, 127);
          const size_t cn = size_t(c.output_h) * c.output_w * c.output_c;
          std::vector<int8_t> cwant(cn), cgot(cn, 0x55);
          std::vector<int8_t> scratch(dsp::conv_scratch_bytes(c) + 16);
          portable_conv2d(cc.p, cc.input.data(), cw.data(), cc.bias.data(), cwant.data(),
                          Scratch{nullptr, 0});
          dsp::conv2d(cc.p, cc.input.data(), cw.data(), cc.bias.data(), cgot.data(),
                      Scratch{scratch.data(), dsp::conv_scratch_bytes(c)});
          ASSERT_EQ(cgot, cwant) << "conv " << k << "x" << k << " stride " << stride << " pad "
                                 << ah.pad << "," << aw.pad;

          PoolParams p = prepare_pool(1, in_h, in_w, d.input_c, k, k, stride, stride, false, -128,
                                      127);
          p.pad_h = ah.pad;
          p.pad_w = aw.pad;
          p.output_h = ah.output;
          p.output_w = aw.output;
          const size_t pn = size_t(p.output_h) * p.output_w * p.channels;
          std::vector<int8_t> pwant(pn), pgot(pn, 0x55);
          portable_max_pool(p, dc.input.data(), pwant.data());
          dsp::max_pool(p, dc.input.data(), pgot.data());
          ASSERT_EQ(pgot, pwant) << "max pool " << k << "x" << k << " stride " << stride;
        }
      }
    }
  }
  EXPECT_GT(ran, 200);
}

// One case of an elementwise kernel against portable: up to 70 same-shape elements, or a
// broadcast (every input at -128 or 127 throughout every fifth iteration), then the same in place
// (output = the operand of the output's shape), as the runtime runs it.
template <typename Params>
using ElementwiseKernel = void (*)(const Params&, const BroadcastShape&, const int8_t*,
                                   const int8_t*, int8_t*);
template <typename Params>
void expect_elementwise_equal(ElementwiseKernel<Params> kernel, ElementwiseKernel<Params> portable,
                              bool (*handles)(const BroadcastShape&), const Params& p, int iter,
                              const std::string& what) {
  int32_t n = uniform(1, 70);
  BroadcastShape shape = elementwise_shape(n);
  // Every third iteration a broadcast the kernel takes: [rows, cols] against [1, cols] (a
  // per-channel operand of at least four, or a scalar), either input the repeated one.
  const int kind = iter % 3 == 0 ? iter / 3 % 4 : -1;
  const bool first_repeated = kind == 1 || kind == 3;
  size_t n1 = static_cast<size_t>(n), n2 = static_cast<size_t>(n);
  if (kind >= 0) {
    const int32_t cols = kind < 2 ? uniform(4, 20) : 1, rows = uniform(1, 6);
    const int32_t full[2] = {rows, cols}, run[2] = {1, cols};
    ASSERT_TRUE(first_repeated ? prepare_broadcast_shape(run, 2, full, 2, &shape)
                               : prepare_broadcast_shape(full, 2, run, 2, &shape));
    n = rows * cols;
    (first_repeated ? n1 : n2) = static_cast<size_t>(cols);
    (first_repeated ? n2 : n1) = static_cast<size_t>(n);
  }
  ASSERT_TRUE(handles(shape)) << "iteration " << iter << ", broadcast kind " << kind;
  const int32_t lo = iter % 5 == 0 ? (iter % 2 ? 127 : -128) : -128;
  const int32_t hi = iter % 5 == 0 ? lo : 127;
  auto a = random_values<int8_t>(n1, lo, hi);
  auto b = random_values<int8_t>(n2, lo, hi);
  std::vector<int8_t> want(n), got(n, 0x55);
  portable(p, shape, a.data(), b.data(), want.data());
  kernel(p, shape, a.data(), b.data(), got.data());
  ASSERT_EQ(got, want) << "iteration " << iter << " " << what << " broadcast kind " << kind;
  // In place into the operand of the output's shape (a broadcast one is read again).
  std::vector<int8_t>& full = first_repeated ? b : a;
  kernel(p, shape, a.data(), b.data(), full.data());
  ASSERT_EQ(full, want) << "iteration " << iter << " in place, broadcast kind " << kind;
}

// ADD: parameters as TFLite prepares them from random scales, and raw ones at the edges of what
// the dsp shortcuts take (any right shift, left shift up to 22, multipliers up to INT32_MAX); in
// place too (output = input1), as the runtime runs it.
TEST(DspAdd, EqualsPortableOnRandomParameters) {
  int ran = 0;
  for (int iter = 0; iter < 400; ++iter) {
    AddParams p{};
    if (iter % 2 == 0) {
      const auto scale = [] { return std::ldexp(static_cast<float>(uniform(1000, 100000)), -uniform(10, 24)); };
      p = prepare_add(scale(), uniform(-128, 127), scale(), uniform(-128, 127), scale(),
                      uniform(-128, 127), iter % 8 == 0 ? uniform(-128, 0) : -128,
                      iter % 8 == 0 ? uniform(1, 127) : 127);
    } else {
      p.input1_offset = uniform(-127, 128);
      p.input2_offset = uniform(-127, 128);
      p.output_offset = uniform(-128, 127);
      p.left_shift = uniform(0, 22);
      p.input1_multiplier = uniform(iter % 3 == 0 ? 0 : 1 << 30, INT32_MAX);
      p.input2_multiplier = uniform(1 << 30, INT32_MAX);
      p.input1_shift = uniform(-31, 0);
      p.input2_shift = uniform(-31, 0);
      p.output_multiplier = uniform(1 << 30, INT32_MAX);
      p.output_shift = uniform(-31, 0);
      p.act_min = -128;
      p.act_max = 127;
    }
    if (!add_fits(p)) continue;
    ++ran;
    ASSERT_NO_FATAL_FAILURE(expect_elementwise_equal<AddParams>(
        &dsp::add, &portable_add, &dsp::add_handles, p, iter,
        "shifts " + std::to_string(p.left_shift) + " " + std::to_string(p.input1_shift) + " " +
            std::to_string(p.input2_shift) + " " + std::to_string(p.output_shift)));
  }
  EXPECT_GT(ran, 250);
  // Rows shorter than four, and a broadcast in the middle, stay portable's.
  const int32_t d1[] = {2, 3}, d2[] = {1, 3}, d3[] = {2, 4, 5}, d4[] = {2, 1, 5};
  BroadcastShape broadcast{};
  ASSERT_TRUE(prepare_broadcast_shape(d1, 2, d2, 2, &broadcast));
  EXPECT_FALSE(dsp::add_handles(broadcast));
  EXPECT_STREQ(built_add_kernel_variant(broadcast), "portable");
  ASSERT_TRUE(prepare_broadcast_shape(d3, 3, d4, 3, &broadcast));
  EXPECT_FALSE(dsp::add_handles(broadcast));
  EXPECT_STREQ(built_add_kernel_variant(elementwise_shape(8)), "dsp");
  EXPECT_STREQ(add_kernel_variant(elementwise_shape(8), Extension::kScalar), "portable");
}

// MUL: TFLite-prepared parameters, raw ones with any output shift, in place too.
TEST(DspMul, EqualsPortableOnRandomParameters) {
  int ran = 0;
  for (int iter = 0; iter < 300; ++iter) {
    MulParams p{};
    if (iter % 2 == 0) {
      const auto scale = [] { return std::ldexp(static_cast<float>(uniform(1000, 100000)), -uniform(10, 22)); };
      p = prepare_mul(scale(), uniform(-128, 127), scale(), uniform(-128, 127), scale(),
                      uniform(-128, 127), iter % 8 == 0 ? uniform(-128, 0) : -128,
                      iter % 8 == 0 ? uniform(1, 127) : 127);
    } else {
      p.input1_offset = uniform(-127, 128);
      p.input2_offset = uniform(-127, 128);
      p.output_offset = uniform(-128, 127);
      p.output_multiplier = uniform(1 << 30, INT32_MAX);
      p.output_shift = uniform(-31, 1);
      p.act_min = -128;
      p.act_max = 127;
    }
    if (!mul_fits(p)) continue;
    ++ran;
    ASSERT_NO_FATAL_FAILURE(expect_elementwise_equal<MulParams>(
        &dsp::mul, &portable_mul, &dsp::mul_handles, p, iter,
        "shift " + std::to_string(p.output_shift)));
  }
  EXPECT_GT(ran, 200);
  EXPECT_STREQ(built_mul_kernel_variant(elementwise_shape(8)), "dsp");
}

// The tables: a build with the dsp folder runs it, and plans for the DSP extension name it.
TEST(DspTables, BuiltAndPlannedForTheDspExtension) {
  const DepthwiseShape dw{1, 8, 8, 16, 3, 3, 8, 8, 16, 1, 1, 1, 1, 1, 1};
  EXPECT_STREQ(built_depthwise_conv_kernel_variant(dw), "dsp");
  EXPECT_STREQ(depthwise_conv_kernel_variant(dw, Extension::kDsp), "dsp");
  EXPECT_STREQ(depthwise_conv_kernel_variant(dw, Extension::kScalar), "portable");
  // A Helium build plans its own kernel (mve/, not built into this library).
  EXPECT_STREQ(depthwise_conv_kernel_variant(dw, Extension::kMve), "mve");
  EXPECT_EQ(depthwise_conv_scratch_bytes(dw, Extension::kDsp), 0u);
  EXPECT_STREQ(built_fully_connected_kernel_variant(10), "dsp");
  EXPECT_STREQ(fully_connected_kernel_variant(10, Extension::kDsp), "dsp");
  EXPECT_EQ(fully_connected_scratch_bytes(10, Extension::kDsp), 0u);
  const ConvShape c{1, 8, 8, 3, 3, 3, 3, 8, 8, 16, 1, 1, 1, 1, 1, 1};
  EXPECT_STREQ(built_conv_kernel_variant(c), "dsp");
  EXPECT_STREQ(conv_kernel_variant(c, Extension::kDsp), "dsp");
  EXPECT_EQ(conv_scratch_bytes(c, Extension::kDsp), portable_conv_scratch_bytes(c));
  ConvShape grouped = c;
  grouped.input_c = 6;
  EXPECT_STREQ(built_conv_kernel_variant(grouped), "dsp");
  grouped.output_c = 15;  // not a multiple of the two groups
  EXPECT_STREQ(built_conv_kernel_variant(grouped), "portable");
}

}  // namespace
}  // namespace mote::kernels
