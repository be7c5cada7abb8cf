#include "mote/kernels/fully_connected.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "conv_test_util.h"

namespace mote::kernels {
namespace {

using testing::Guarded;
using testing::RequantizeRef;
using testing::Rng;

struct FcCase {
  FullyConnectedParams params{};
  std::vector<int8_t> input, filter;
  std::vector<int32_t> bias, multiplier, shift;
  bool has_bias = true;
  size_t output_size() const {
    return static_cast<size_t>(params.batches) * params.output_depth;
  }
};

std::vector<int8_t> ReferenceFc(const FcCase& c) {
  const FullyConnectedParams& p = c.params;
  std::vector<int8_t> out(c.output_size());
  for (int32_t b = 0; b < p.batches; ++b)
    for (int32_t o = 0; o < p.output_depth; ++o) {
      int64_t acc = c.has_bias ? c.bias[o] : 0;
      for (int32_t i = 0; i < p.input_depth; ++i) {
        acc += (c.input[b * p.input_depth + i] + p.input_offset) *
               (c.filter[o * p.input_depth + i] + p.filter_offset);
      }
      const int32_t q = p.per_channel ? o : 0;
      out[b * p.output_depth + o] = RequantizeRef(acc, c.multiplier[q], c.shift[q], p.output_offset,
                                                  p.act_min, p.act_max);
    }
  return out;
}

// Runs with bias (no kernel sums) or with kernel sums computed by the helper; guards the output.
std::vector<int8_t> RunFc(FcCase& c, bool with_sums) {
  c.params.output_multiplier = c.multiplier.data();
  c.params.output_shift = c.shift.data();
  const int32_t* bias = c.has_bias ? c.bias.data() : nullptr;
  std::vector<int32_t> sums(c.params.output_depth);
  FullyConnectedParams p = c.params;
  p.kernel_sums = nullptr;
  if (with_sums) {
    fully_connected_kernel_sums(p, c.filter.data(), bias, sums.data());
    p.kernel_sums = sums.data();
    bias = nullptr;  // the sums carry it
  }
  Guarded output(c.output_size(), 0x11);
  fully_connected(p, c.input.data(), c.filter.data(), bias, output.data());
  EXPECT_TRUE(output.Intact()) << "output guard overwritten";
  return output.contents();
}

TEST(FullyConnected, HandChecked) {
  FcCase c;
  // Two rows of three inputs, zero point 1 (offset -1); two outputs; weight zero point 0.
  c.params = FullyConnectedParams{2, 3, 2, -1, 0, 10, -128, 127, nullptr, nullptr, false, nullptr};
  c.input = {1, 2, 3,    // x + offset = 0 1 2
             5, -1, 0};  // 4 -2 -1
  c.filter = {1, 2, 3,   // row 0
              -1, 0, 4}; // row 1
  c.bias = {1, -3};
  c.multiplier = {1 << 30};  // 0.5, per tensor
  c.shift = {0};
  // Row 0: o0 = 0+2+6+1 = 9 -> 4.5 -> 5 -> 15; o1 = 0+0+8-3 = 5 -> 2.5 -> 3 -> 13.
  // Row 1: o0 = 4-4-3+1 = -2 -> -1 -> 9; o1 = -4+0-4-3 = -11 -> -5.5 -> -5 -> 5.
  const std::vector<int8_t> want = {15, 13, 9, 5};
  EXPECT_EQ(ReferenceFc(c), want);
  EXPECT_EQ(RunFc(c, false), want);
  EXPECT_EQ(RunFc(c, true), want);
}

TEST(FullyConnected, HandCheckedWeightZeroPoint) {
  FcCase c;
  // Weight zero point 2 (filter_offset -2), per-channel multipliers, no bias.
  c.params = FullyConnectedParams{1, 2, 2, 3, -2, 0, -128, 127, nullptr, nullptr, true, nullptr};
  c.input = {-1, 1};     // x + 3 = 2 4
  c.filter = {4, 2,      // w - 2 = 2 0 -> 4
              0, 5};     // -2 3 -> -4 + 12 = 8
  c.has_bias = false;
  c.multiplier = {1 << 30, 1 << 30};
  c.shift = {1, -1};     // x1, x0.25
  const std::vector<int8_t> want = {4, 2};
  EXPECT_EQ(ReferenceFc(c), want);
  EXPECT_EQ(RunFc(c, false), want);
  EXPECT_EQ(RunFc(c, true), want);
}

TEST(FullyConnected, RandomAgainstReference) {
  Rng rng(777);
  for (int i = 0; i < 300; ++i) {
    FcCase c;
    FullyConnectedParams& p = c.params;
    p.batches = rng.Uniform(1, 3);
    p.input_depth = rng.Chance(30) ? rng.Uniform(30, 300) : rng.Uniform(1, 20);
    p.output_depth = rng.Uniform(1, 11);
    p.input_offset = rng.Uniform(-127, 128);
    p.filter_offset = rng.Chance(30) ? rng.Uniform(-20, 20) : 0;
    p.output_offset = rng.Uniform(-128, 127);
    p.act_min = rng.Chance(30) ? rng.Uniform(-128, 0) : -128;
    p.act_max = rng.Chance(30) ? rng.Uniform(0, 127) : 127;
    p.per_channel = rng.Chance(50);
    c.input = rng.Int8s(static_cast<size_t>(p.batches) * p.input_depth);
    c.filter = rng.Int8s(static_cast<size_t>(p.output_depth) * p.input_depth);
    // Keep w + filter_offset inside int8 like a real weight zero point would.
    for (auto& w : c.filter) w = static_cast<int8_t>(std::clamp(w - p.filter_offset, -128, 127));
    c.has_bias = rng.Chance(75);
    c.bias = rng.Int32s(p.output_depth, -30000, 30000);
    const size_t q = p.per_channel ? p.output_depth : 1;
    c.multiplier = rng.Multipliers(q);
    c.shift = rng.Shifts(q, -13, 0);
    const std::vector<int8_t> want = ReferenceFc(c);
    EXPECT_EQ(RunFc(c, false), want) << "case " << i;
    EXPECT_EQ(RunFc(c, true), want) << "case " << i << " with kernel sums";
    if (HasFailure()) return;
  }
}

TEST(FullyConnected, KernelSumsHandChecked) {
  FullyConnectedParams p{1, 3, 2, 5, -1, 0, -128, 127, nullptr, nullptr, false, nullptr};
  const std::vector<int8_t> filter = {1, 2, 3, -4, 0, 1};
  const std::vector<int32_t> bias = {100, -100};
  std::vector<int32_t> sums(2);
  fully_connected_kernel_sums(p, filter.data(), bias.data(), sums.data());
  // bias + io * sum(w) + n * io * fo: 100 + 5*6 - 15 = 115; -100 + 5*(-3) - 15 = -130.
  EXPECT_EQ(sums, (std::vector<int32_t>{115, -130}));
  fully_connected_kernel_sums(p, filter.data(), nullptr, sums.data());
  EXPECT_EQ(sums, (std::vector<int32_t>{15, -30}));
}

}  // namespace
}  // namespace mote::kernels
