// The overlap rules (mote/kernels/overlap.h) on real bytes: each kernel runs with its output
// placed `lead` bytes before its input in one buffer and must match the separate-buffer result
// bit for bit; for each rule, some case must go wrong one alignment step (16 bytes) closer, so
// the rule is tight. Built into mote_kernels_test (portable kernels) and, through
// dsp/overlap_test.cc, mote_kernels_dsp_test (the dsp kernels on emulated instructions): each
// checks the rules of the variants its library runs (built_*_overlap).
#include "mote/kernels/overlap.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>

#include "mote/kernels/add.h"
#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "mote/kernels/pooling.h"
#include "mote/kernels/quantize.h"
#include "kernels/portable/conv_test_util.h"
#include "kernels/portable/window.h"

namespace mote::kernels {
namespace {

using testing::Rng;

// Runs `kernel(input, output)` on an input of `in_bytes` and an output of `out_bytes`, either
// apart or with the output starting `lead` bytes before the input in one buffer.
using Kernel = std::function<void(const int8_t* input, int8_t* output)>;

struct Case {
  std::string name;
  OverlapRule rule;
  std::vector<int8_t> input;
  size_t out_bytes;
  Kernel kernel;
};

std::vector<int8_t> run_apart(const Case& c) {
  std::vector<int8_t> in = c.input, out(c.out_bytes, 0x11);
  c.kernel(in.data(), out.data());
  return out;
}

std::vector<int8_t> run_overlapped(const Case& c, int64_t lead) {
  const int64_t in_bytes = static_cast<int64_t>(c.input.size());
  const int64_t out_bytes = static_cast<int64_t>(c.out_bytes);
  const int64_t in_at = std::max<int64_t>(0, lead);
  const int64_t out_at = in_at - lead;
  std::vector<int8_t> arena(static_cast<size_t>(std::max(in_at + in_bytes, out_at + out_bytes)), 0x22);
  std::memcpy(arena.data() + in_at, c.input.data(), c.input.size());
  c.kernel(arena.data() + in_at, arena.data() + out_at);
  return std::vector<int8_t>(arena.begin() + out_at, arena.begin() + out_at + out_bytes);
}

// Safe at the lead and above; returns whether 16 bytes closer breaks it.
bool check_case(const Case& c) {
  SCOPED_TRACE(c.name + " lead " + std::to_string(c.rule.lead));
  EXPECT_TRUE(c.rule.allowed);
  if (!c.rule.allowed) return false;
  const std::vector<int8_t> want = run_apart(c);
  for (int64_t extra : {0, 1, 16, 64}) {
    EXPECT_EQ(run_overlapped(c, c.rule.lead + extra), want) << "at lead + " << extra;
  }
  const int64_t closer = c.rule.lead - 16;
  if (closer <= -static_cast<int64_t>(c.input.size())) return false;
  return run_overlapped(c, closer) != want;
}

int32_t conv_out(int32_t in, int32_t k, int32_t stride, bool same, int32_t* pad) {
  const int32_t out = same ? (in + stride - 1) / stride : (in - k) / stride + 1;
  *pad = same ? std::max(0, (out - 1) * stride + k - in) / 2 : 0;
  return out;
}

int32_t shift_for(int64_t taps) {
  int32_t bits = 0;
  while ((int64_t{1} << bits) < taps) ++bits;
  return -(bits + 6);
}

struct ConvSpec {
  int32_t h, w, ci, k_h, k_w, co, stride;
  bool same;
};

Case conv_case(const ConvSpec& spec, Rng& rng) {
  ConvShape s{};
  s.batches = 1;
  s.input_h = spec.h;
  s.input_w = spec.w;
  s.input_c = spec.ci;
  s.filter_h = spec.k_h;
  s.filter_w = spec.k_w;
  s.filter_c = spec.ci;
  s.output_h = conv_out(spec.h, spec.k_h, spec.stride, spec.same, &s.pad_h);
  s.output_w = conv_out(spec.w, spec.k_w, spec.stride, spec.same, &s.pad_w);
  s.output_c = spec.co;
  s.stride_h = s.stride_w = spec.stride;
  s.dilation_h = s.dilation_w = 1;
  const size_t taps = static_cast<size_t>(spec.k_h) * spec.k_w * spec.ci;
  auto filter = std::make_shared<std::vector<int8_t>>(rng.Int8s(taps * spec.co));
  auto bias = std::make_shared<std::vector<int32_t>>(rng.Int32s(spec.co, -2000, 2000));
  auto mult = std::make_shared<std::vector<int32_t>>(rng.Multipliers(spec.co));
  auto shift = std::make_shared<std::vector<int32_t>>(spec.co, shift_for(static_cast<int64_t>(taps)));
  auto scratch = std::make_shared<std::vector<int8_t>>(built_conv_scratch_bytes(s) + 16);
  ConvParams p{s, 3, -2, -128, 127, mult->data(), shift->data()};
  Case c;
  c.name = "conv " + std::to_string(spec.h) + "x" + std::to_string(spec.w) + "x" +
           std::to_string(spec.ci) + " k" + std::to_string(spec.k_h) + "x" +
           std::to_string(spec.k_w) + " s" + std::to_string(spec.stride) + " co " +
           std::to_string(spec.co) + (spec.same ? " same" : " valid");
  c.rule = built_conv_overlap(s);
  c.input = rng.Int8s(static_cast<size_t>(spec.h) * spec.w * spec.ci);
  c.out_bytes = static_cast<size_t>(s.output_h) * s.output_w * s.output_c;
  c.kernel = [=](const int8_t* in, int8_t* out) {
    (void)mult, (void)shift;  // kept alive: p points into them
    conv2d(p, in, filter->data(), bias->data(), out,
           Scratch{scratch->data(), built_conv_scratch_bytes(p.shape)});
  };
  return c;
}

Case depthwise_case(const ConvSpec& spec, int32_t multiplier, Rng& rng) {
  DepthwiseShape s{};
  s.batches = 1;
  s.input_h = spec.h;
  s.input_w = spec.w;
  s.input_c = spec.ci;
  s.filter_h = spec.k_h;
  s.filter_w = spec.k_w;
  s.output_h = conv_out(spec.h, spec.k_h, spec.stride, spec.same, &s.pad_h);
  s.output_w = conv_out(spec.w, spec.k_w, spec.stride, spec.same, &s.pad_w);
  s.output_c = spec.ci * multiplier;
  s.stride_h = s.stride_w = spec.stride;
  s.dilation_h = s.dilation_w = 1;
  const size_t co = static_cast<size_t>(s.output_c);
  auto filter = std::make_shared<std::vector<int8_t>>(rng.Int8s(static_cast<size_t>(spec.k_h) * spec.k_w * co));
  auto bias = std::make_shared<std::vector<int32_t>>(rng.Int32s(co, -500, 500));
  auto mult = std::make_shared<std::vector<int32_t>>(rng.Multipliers(co));
  auto shift = std::make_shared<std::vector<int32_t>>(co, shift_for(int64_t{spec.k_h} * spec.k_w));
  DepthwiseConvParams p{s, 5, 1, -128, 127, mult->data(), shift->data()};
  Case c;
  c.name = "depthwise " + std::to_string(spec.h) + "x" + std::to_string(spec.w) + "x" +
           std::to_string(spec.ci) + " k" + std::to_string(spec.k_h) + " s" +
           std::to_string(spec.stride) + " m" + std::to_string(multiplier) +
           (spec.same ? " same" : " valid");
  c.rule = built_depthwise_conv_overlap(s);
  c.input = rng.Int8s(static_cast<size_t>(spec.h) * spec.w * spec.ci);
  c.out_bytes = static_cast<size_t>(s.output_h) * s.output_w * co;
  c.kernel = [=](const int8_t* in, int8_t* out) {
    (void)mult, (void)shift;  // kept alive: p points into them
    depthwise_conv2d(p, in, filter->data(), bias->data(), out, Scratch{nullptr, 0});
  };
  return c;
}

Case pool_case(const ConvSpec& spec, bool average, Rng& rng) {
  const PoolParams p = prepare_pool(1, spec.h, spec.w, spec.ci, spec.k_h, spec.k_w, spec.stride,
                                    spec.stride, spec.same, -128, 127);
  Case c;
  c.name = std::string(average ? "average" : "max") + " pool " + std::to_string(spec.h) + "x" +
           std::to_string(spec.w) + "x" + std::to_string(spec.ci) + " k" +
           std::to_string(spec.k_h) + "x" + std::to_string(spec.k_w) + " s" +
           std::to_string(spec.stride) + (spec.same ? " same" : " valid");
  c.rule = average ? built_average_pool_overlap(p) : built_max_pool_overlap(p);
  c.input = rng.Int8s(static_cast<size_t>(spec.h) * spec.w * spec.ci);
  c.out_bytes = static_cast<size_t>(p.output_h) * p.output_w * spec.ci;
  auto scratch = std::make_shared<std::vector<int8_t>>(static_cast<size_t>(spec.ci) * 4 + 16);
  c.kernel = [=](const int8_t* in, int8_t* out) {
    if (average) {
      average_pool(p, in, out, Scratch{scratch->data(), scratch->size()});
    } else {
      max_pool(p, in, out);
    }
  };
  return c;
}

// Every rule: a few shapes of the MLPerf Tiny kind, then random ones; each rule must be tight
// (16 bytes closer breaks it) for at least one of its shapes.
TEST(Overlap, RulesHoldOnRealBytesAndAreTight) {
  Rng rng(14);
  bool tight_pointwise = false, tight_im2col = false, tight_depthwise = false, tight_pool = false;
  const ConvSpec pointwise[] = {{5, 5, 16, 1, 1, 16, 1, false},  {6, 6, 8, 1, 1, 16, 1, false},
                                {6, 6, 32, 1, 1, 8, 1, false},   {7, 5, 7, 1, 1, 5, 1, false},
                                {8, 8, 16, 1, 1, 16, 2, false},  {3, 3, 16, 1, 1, 48, 1, false}};
  for (const ConvSpec& spec : pointwise) tight_pointwise |= check_case(conv_case(spec, rng));
  const ConvSpec im2col[] = {{6, 6, 16, 3, 3, 16, 1, true},  {13, 6, 1, 10, 4, 64, 2, true},
                             {12, 12, 3, 3, 3, 8, 2, true},  {7, 7, 8, 3, 3, 16, 1, false},
                             {8, 8, 16, 3, 3, 32, 2, true}};
  for (const ConvSpec& spec : im2col) tight_im2col |= check_case(conv_case(spec, rng));
  const ConvSpec depthwise[] = {{6, 5, 64, 3, 3, 0, 1, true},  {8, 8, 16, 3, 3, 0, 2, true},
                                {7, 7, 8, 3, 3, 0, 1, false},  {9, 9, 4, 5, 5, 0, 2, true},
                                {5, 5, 3, 3, 3, 0, 1, true}};
  for (const ConvSpec& spec : depthwise) tight_depthwise |= check_case(depthwise_case(spec, 1, rng));
  tight_depthwise |= check_case(depthwise_case({6, 6, 4, 3, 3, 0, 1, true}, 2, rng));
  // Depth multipliers through the dsp kernel's blocks of four outputs of one input channel and
  // its single outputs (4, 5, 3), and a stride.
  for (const int32_t m : {3, 4, 5, 8}) {
    tight_depthwise |= check_case(depthwise_case({6, 5, 3, 3, 3, 0, 1, true}, m, rng));
    tight_depthwise |= check_case(depthwise_case({7, 7, 2, 3, 3, 0, 2, false}, m, rng));
  }
  const ConvSpec pools[] = {{8, 8, 16, 2, 2, 0, 2, false}, {7, 7, 8, 3, 3, 0, 1, true},
                            {5, 5, 64, 5, 5, 0, 1, false}, {9, 9, 12, 3, 3, 0, 2, true}};
  for (const ConvSpec& spec : pools) {
    tight_pool |= check_case(pool_case(spec, true, rng));
    tight_pool |= check_case(pool_case(spec, false, rng));
  }
  for (int trial = 0; trial < 40; ++trial) {
    const int32_t h = rng.Uniform(2, 9), w = rng.Uniform(2, 9), ci = rng.Uniform(1, 24);
    const int32_t k = rng.Uniform(1, 3) * 2 - 1, stride = rng.Uniform(1, 2);
    const bool same = rng.Chance(50);
    if (!same && (k > h || k > w)) continue;
    const int32_t co = rng.Uniform(1, 40);
    tight_pointwise |= check_case(conv_case({h, w, ci, 1, 1, co, stride, false}, rng));
    if (k > 1) tight_im2col |= check_case(conv_case({h, w, ci, k, k, co, stride, same}, rng));
    tight_depthwise |= check_case(depthwise_case({h, w, ci, k, k, 0, stride, same}, 1, rng));
    tight_pool |= check_case(pool_case({h, w, ci, k, k, 0, stride, same}, rng.Chance(50), rng));
  }
  EXPECT_TRUE(tight_pointwise);
  EXPECT_TRUE(tight_im2col);
  EXPECT_TRUE(tight_depthwise);
  EXPECT_TRUE(tight_pool);
}

// A pointwise convolution run backward (conv2d_backward): equal to conv2d apart, right with its
// output at the backward rule's lead after its input or further, and (for some case) wrong 16
// bytes closer.
bool check_backward(const ConvSpec& spec, Rng& rng, int32_t batches = 1) {
  Case c = conv_case(spec, rng);
  ConvShape s{};
  s.batches = batches;
  s.input_h = s.output_h = spec.h;
  s.input_w = s.output_w = spec.w;
  s.input_c = s.filter_c = spec.ci;
  s.filter_h = s.filter_w = 1;
  s.output_c = spec.co;
  s.stride_h = s.stride_w = s.dilation_h = s.dilation_w = 1;
  c.input = rng.Int8s(static_cast<size_t>(batches) * spec.h * spec.w * spec.ci);
  c.out_bytes = static_cast<size_t>(batches) * spec.h * spec.w * spec.co;
  const Kernel forward = c.kernel;  // conv2d on the one-batch shape conv_case made
  auto filter = std::make_shared<std::vector<int8_t>>(rng.Int8s(static_cast<size_t>(spec.ci) * spec.co));
  auto bias = std::make_shared<std::vector<int32_t>>(rng.Int32s(spec.co, -2000, 2000));
  auto mult = std::make_shared<std::vector<int32_t>>(rng.Multipliers(spec.co));
  auto shift = std::make_shared<std::vector<int32_t>>(spec.co, shift_for(spec.ci));
  const ConvParams p{s, 3, -2, -128, 127, mult->data(), shift->data()};
  c.name = "backward " + c.name + " batches " + std::to_string(batches);
  c.rule = conv_backward_overlap(s);
  SCOPED_TRACE(c.name + " back lead " + std::to_string(c.rule.lead));
  EXPECT_TRUE(c.rule.allowed && c.rule.backward);
  if (!c.rule.allowed) return false;
  c.kernel = [=](const int8_t* in, int8_t* out) {
    (void)mult, (void)shift;  // kept alive: p points into them
    conv2d_backward(p, in, filter->data(), bias->data(), out, Scratch{nullptr, 0});
  };
  // Bit for bit conv2d's result, apart.
  std::vector<int8_t> want(c.out_bytes, 0x11);
  {
    std::vector<int8_t> in = c.input;
    conv2d(p, in.data(), filter->data(), bias->data(), want.data(), Scratch{nullptr, 0});
  }
  (void)forward;
  EXPECT_EQ(run_apart(c), want);
  // A lead of -x in run_overlapped puts the output x bytes after the input.
  for (int64_t extra : {0, 1, 16, 64}) {
    EXPECT_EQ(run_overlapped(c, -(c.rule.lead + extra)), want) << "at back lead + " << extra;
  }
  // The rule as the loader reads it.
  EXPECT_TRUE(overlap_allows(c.rule, c.rule.lead, 0));
  EXPECT_FALSE(overlap_allows(c.rule, c.rule.lead - 1, 0));
  const int64_t closer = c.rule.lead - 16;
  if (closer <= -static_cast<int64_t>(c.out_bytes)) return false;
  return run_overlapped(c, -closer) != want;
}

TEST(Overlap, BackwardPointwiseHoldsOnRealBytesAndIsTight) {
  Rng rng(41);
  bool tight_grow = false, tight_shrink = false;
  // Keyword spotting's 25x5x64, visual wake words' kinds (8 -> 16, 32 -> 64 at 12x12, 128 -> 128
  // at 6x6, 256 at 3x3), and shrinking ones (the rule then sits at the last chunk).
  const ConvSpec grow[] = {{25, 5, 64, 1, 1, 64, 1, false}, {12, 12, 8, 1, 1, 16, 1, false},
                           {6, 6, 32, 1, 1, 64, 1, false},  {3, 3, 32, 1, 1, 32, 1, false},
                           {7, 5, 16, 1, 1, 48, 1, false}};
  for (const ConvSpec& spec : grow) tight_grow |= check_backward(spec, rng);
  const ConvSpec shrink[] = {{6, 6, 32, 1, 1, 16, 1, false}, {5, 7, 48, 1, 1, 16, 1, false}};
  for (const ConvSpec& spec : shrink) tight_shrink |= check_backward(spec, rng);
  tight_grow |= check_backward({4, 3, 16, 1, 1, 32, 1, false}, rng, /*batches=*/3);
  for (int trial = 0; trial < 40; ++trial) {
    const int32_t h = rng.Uniform(1, 9), w = rng.Uniform(1, 9), ci = rng.Uniform(1, 48);
    const int32_t co = rng.Uniform(1, 48);
    const bool tight = check_backward({h, w, ci, 1, 1, co, 1, false}, rng, rng.Uniform(1, 2));
    (co >= ci ? tight_grow : tight_shrink) |= tight;
  }
  EXPECT_TRUE(tight_grow);
  EXPECT_TRUE(tight_shrink);
  // Nothing else runs backward.
  ConvShape strided{1, 8, 8, 16, 1, 1, 16, 4, 4, 16, 2, 2, 0, 0, 1, 1};
  EXPECT_FALSE(conv_backward_overlap(strided).allowed);
  ConvShape k3{1, 8, 8, 16, 3, 3, 16, 8, 8, 16, 1, 1, 1, 1, 1, 1};
  EXPECT_FALSE(conv_backward_overlap(k3).allowed);
  // Keyword spotting: chunks of four pixels (a row and a pixel, 6, rounded down to a multiple of
  // four) of 64 channels, within the 3x3 depthwise convolution's forward lead before it.
  ConvShape kws{1, 25, 5, 64, 1, 1, 64, 25, 5, 64, 1, 1, 0, 0, 1, 1};
  EXPECT_EQ(conv_backward_chunks(kws).block, 4);
  EXPECT_EQ(conv_backward_chunks(kws).split, 0);
  EXPECT_EQ(conv_backward_overlap(kws).lead, 4 * 64);
  // Visual wake words' 8 -> 16 over 48x48: chunks of 48 pixels from pixel 46, two before; the
  // first chunk's two pixels of 8 channels are the lead (48 pixels' 384 bytes without them).
  ConvShape vww{1, 48, 48, 8, 1, 1, 8, 48, 48, 16, 1, 1, 0, 0, 1, 1};
  EXPECT_EQ(conv_backward_chunks(vww).block, 48);
  EXPECT_EQ(conv_backward_chunks(vww).split, 46);
  EXPECT_EQ(conv_backward_overlap(vww).lead, 2 * 8);
  EXPECT_TRUE(check_backward({48, 48, 8, 1, 1, 16, 1, false}, rng));
}

// The chunks of a backward run cover every pixel once, from the last to the first, small ones
// below the split.
TEST(Overlap, BackwardChunksCoverEveryPixelOnceFromTheLast) {
  for (int32_t pixels : {1, 2, 3, 7, 46, 47, 48, 95, 2304}) {
    for (int32_t split : {0, 2, 4, 46, 48, 3000}) {
      const internal::PixelChunks chunks{pixels, 48, split};
      std::vector<int32_t> seen;
      int32_t upper = pixels;
      for (int32_t c = chunks.first(); c >= 0; c = chunks.before(c)) {
        SCOPED_TRACE("pixels " + std::to_string(pixels) + " split " + std::to_string(split) +
                     " chunk at " + std::to_string(c));
        EXPECT_EQ(chunks.end(c), upper);
        EXPECT_LE(chunks.end(c) - c, c < split ? kBackwardFirstChunk : 48);
        upper = c;
      }
      EXPECT_EQ(upper, 0) << pixels << " " << split;
    }
  }
  const internal::PixelChunks forward{10, 0, 0};
  EXPECT_EQ(forward.first(), 0);
  EXPECT_EQ(forward.end(0), 10);
  EXPECT_LT(forward.before(0), 0);
}

// A depthwise convolution run in place (depthwise_conv2d_in_place): depthwise_conv2d's result
// bit for bit, apart and with the output exactly on its input; and for some case wrong with the
// output one alignment step (16 bytes) before or after its input, which its rule refuses.
bool check_in_place(const ConvSpec& spec, Rng& rng, int32_t batches = 1) {
  Case c = depthwise_case(spec, 1, rng);
  DepthwiseShape s{};
  s.batches = batches;
  s.input_h = spec.h;
  s.input_w = spec.w;
  s.input_c = s.output_c = spec.ci;
  s.filter_h = spec.k_h;
  s.filter_w = spec.k_w;
  s.output_h = conv_out(spec.h, spec.k_h, spec.stride, spec.same, &s.pad_h);
  s.output_w = conv_out(spec.w, spec.k_w, spec.stride, spec.same, &s.pad_w);
  s.stride_h = s.stride_w = spec.stride;
  s.dilation_h = s.dilation_w = 1;
  c.input = rng.Int8s(static_cast<size_t>(batches) * spec.h * spec.w * spec.ci);
  c.out_bytes = static_cast<size_t>(batches) * s.output_h * s.output_w * spec.ci;
  const size_t co = static_cast<size_t>(spec.ci);
  auto filter = std::make_shared<std::vector<int8_t>>(
      rng.Int8s(static_cast<size_t>(spec.k_h) * spec.k_w * co));
  auto bias = std::make_shared<std::vector<int32_t>>(rng.Int32s(co, -500, 500));
  auto mult = std::make_shared<std::vector<int32_t>>(rng.Multipliers(co));
  auto shift =
      std::make_shared<std::vector<int32_t>>(co, shift_for(int64_t{spec.k_h} * spec.k_w));
  const DepthwiseConvParams p{s, 5, 1, -128, 127, mult->data(), shift->data()};
  c.name = "in place " + c.name + " batches " + std::to_string(batches);
  c.rule = depthwise_conv_in_place_overlap(s);
  SCOPED_TRACE(c.name);
  EXPECT_TRUE(c.rule.allowed && c.rule.exact);
  if (!c.rule.allowed) return false;
  const size_t plane = depthwise_conv_in_place_scratch_bytes(s);
  // The padded plane: every row and column a window reads.
  EXPECT_EQ(plane, static_cast<size_t>((s.output_h - 1) * s.stride_h + s.filter_h) *
                       static_cast<size_t>((s.output_w - 1) * s.stride_w + s.filter_w));
  auto scratch = std::make_shared<std::vector<int8_t>>(plane);
  c.kernel = [=](const int8_t* in, int8_t* out) {
    (void)mult, (void)shift;  // kept alive: p points into them
    depthwise_conv2d_in_place(p, in, filter->data(), bias->data(), out,
                              Scratch{scratch->data(), scratch->size()});
  };
  std::vector<int8_t> want(c.out_bytes, 0x11);
  {
    std::vector<int8_t> in = c.input;
    depthwise_conv2d(p, in.data(), filter->data(), bias->data(), want.data(), Scratch{nullptr, 0});
  }
  EXPECT_EQ(run_apart(c), want);
  EXPECT_EQ(run_overlapped(c, 0), want) << "in place";
  // A scratch one byte short: nothing written.
  {
    std::vector<int8_t> in = c.input, out(c.out_bytes, 0x11), short_scratch(plane - 1);
    depthwise_conv2d_in_place(p, in.data(), filter->data(), bias->data(), out.data(),
                              Scratch{short_scratch.data(), short_scratch.size()});
    EXPECT_EQ(out, std::vector<int8_t>(c.out_bytes, 0x11));
  }
  // The rule as the loader reads it: exactly on the input, or apart.
  EXPECT_TRUE(overlap_allows(c.rule, 64, 64));
  EXPECT_FALSE(overlap_allows(c.rule, 48, 64));
  EXPECT_FALSE(overlap_allows(c.rule, 80, 64));
  return run_overlapped(c, 16) != want || run_overlapped(c, -16) != want;
}

TEST(Overlap, InPlaceDepthwiseHoldsOnRealBytesAndIsTight) {
  Rng rng(57);
  bool tight = false;
  // Keyword spotting's 25x5x64, visual wake words' kinds (stride 2 shrinks the output), a
  // valid padding, a 5x5 window and channels that are not a multiple of anything.
  const ConvSpec specs[] = {{25, 5, 64, 3, 3, 0, 1, true}, {48, 48, 8, 3, 3, 0, 1, true},
                            {12, 12, 32, 3, 3, 0, 2, true}, {7, 7, 8, 3, 3, 0, 1, false},
                            {9, 9, 5, 5, 5, 0, 2, true},    {6, 5, 3, 3, 3, 0, 1, true}};
  for (const ConvSpec& spec : specs) tight |= check_in_place(spec, rng);
  tight |= check_in_place({5, 4, 16, 3, 3, 0, 2, true}, rng, /*batches=*/3);
  tight |= check_in_place({6, 6, 7, 3, 3, 0, 1, false}, rng, /*batches=*/2);
  for (int trial = 0; trial < 30; ++trial) {
    const int32_t h = rng.Uniform(2, 9), w = rng.Uniform(2, 9), ci = rng.Uniform(1, 40);
    const int32_t k = rng.Uniform(1, 3) * 2 - 1, stride = rng.Uniform(1, 2);
    const bool same = rng.Chance(50);
    if (!same && (k > h || k > w)) continue;
    tight |= check_in_place({h, w, ci, k, k, 0, stride, same}, rng, rng.Uniform(1, 2));
  }
  EXPECT_TRUE(tight);
  // A depth multiplier other than 1 never runs in place.
  DepthwiseShape m2{1, 6, 6, 4, 3, 3, 6, 6, 8, 1, 1, 1, 1, 1, 1};
  EXPECT_FALSE(depthwise_conv_runs_in_place(m2));
  EXPECT_FALSE(depthwise_conv_in_place_overlap(m2).allowed);
  EXPECT_EQ(depthwise_conv_in_place_scratch_bytes(m2), 0u);
}

// The leads of the MLPerf Tiny layers the figures in FACTS.md section 4 rest on.
TEST(Overlap, KnownLeads) {
  // 3x3 depthwise, stride 1, SAME, 25x5x64 (keyword spotting): one input row and one pixel.
  DepthwiseShape dw{1, 25, 5, 64, 3, 3, 25, 5, 64, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ(built_depthwise_conv_overlap(dw).lead, (5 + 1) * 64);
  // 1x1 8 -> 16 over 48x48 (visual wake words): the input at the end of the output, two pixels
  // of input (the block) less the top byte further up.
  ConvShape pw{1, 48, 48, 8, 1, 1, 8, 48, 48, 16, 1, 1, 0, 0, 1, 1};
  EXPECT_EQ(built_conv_overlap(pw).lead, 48 * 48 * (16 - 8) + 2 * 8 - 1);
  // Same size 1x1: two pixels (less the top byte).
  ConvShape pw64{1, 25, 5, 64, 1, 1, 64, 25, 5, 64, 1, 1, 0, 0, 1, 1};
  EXPECT_EQ(built_conv_overlap(pw64).lead, 2 * 64 - 1);
}

// What the compiler plans for the mve kernels (Cortex-M55/M85; they run under QEMU only, where
// targets/cortex-m/tests/mve_kernels.cc checks the rules on real bytes): blocks of four pixels.
TEST(Overlap, MveLeadsPlanned) {
  // 3x3 depthwise in threes: the block's last pixel written while its first pixel's window (one
  // row and a pixel before it) still has channels to give: (2 + 5) pixels of 64.
  DepthwiseShape dw{1, 25, 5, 64, 3, 3, 25, 5, 64, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ(depthwise_conv_overlap(dw, Extension::kMve).lead, (5 + 2) * 64);
  // Up to four channels: each group written at once, after all its reads.
  DepthwiseShape dw4 = dw;
  dw4.input_c = dw4.output_c = 4;
  EXPECT_EQ(depthwise_conv_overlap(dw4, Extension::kMve).lead, (5 + 1) * 4);
  // 1x1 8 -> 16 over 48x48: four pixels of input (less the top byte) instead of two.
  ConvShape pw{1, 48, 48, 8, 1, 1, 8, 48, 48, 16, 1, 1, 0, 0, 1, 1};
  EXPECT_EQ(conv_overlap(pw, Extension::kMve).lead, 48 * 48 * (16 - 8) + 4 * 8 - 1);
  ConvShape pw64{1, 25, 5, 64, 1, 1, 64, 25, 5, 64, 1, 1, 0, 0, 1, 1};
  EXPECT_EQ(conv_overlap(pw64, Extension::kMve).lead, 4 * 64 - 1);
  // Grouped im2col: none.
  ConvShape grouped{1, 6, 6, 8, 3, 3, 4, 6, 6, 8, 1, 1, 1, 1, 1, 1};
  EXPECT_TRUE(conv_overlap(grouped, Extension::kMve).allowed == false);
  // Pools and add keep portable's rules.
  const PoolParams pool = prepare_pool(1, 8, 8, 16, 2, 2, 2, 2, false, -128, 127);
  EXPECT_EQ(average_pool_overlap(pool, Extension::kMve).lead,
            average_pool_overlap(pool, Extension::kScalar).lead);
  EXPECT_EQ(max_pool_overlap(pool, Extension::kMve).lead,
            max_pool_overlap(pool, Extension::kScalar).lead);
  EXPECT_TRUE(add_overlap(elementwise_shape(10), 1, Extension::kMve).allowed);
}

TEST(Overlap, ElementwiseInPlaceAndBefore) {
  Rng rng(7);
  const int32_t n = 100;
  BroadcastShape shape{};
  shape.rank = 1;
  shape.input1[0] = shape.input2[0] = shape.output[0] = n;
  AddParams p{};
  p.input1_offset = 3;
  p.input2_offset = -1;
  p.output_offset = 2;
  p.left_shift = 20;
  p.input1_multiplier = p.input2_multiplier = p.output_multiplier = 1 << 30;
  p.input1_shift = p.input2_shift = -1;
  p.output_shift = -19;
  p.act_min = -128;
  p.act_max = 127;
  const std::vector<int8_t> other = rng.Int8s(n);
  // The rule of the ADD variant this library runs, for either input.
  Case add_case{"add", built_add_overlap(shape, 0), rng.Int8s(n), static_cast<size_t>(n),
                [&](const int8_t* in, int8_t* out) { add(p, shape, in, other.data(), out); }};
  EXPECT_TRUE(check_case(add_case));
  Case add2_case{"add input 2", built_add_overlap(shape, 1), rng.Int8s(n), static_cast<size_t>(n),
                 [&](const int8_t* in, int8_t* out) { add(p, shape, other.data(), in, out); }};
  EXPECT_TRUE(check_case(add2_case));
  // A broadcast input is read again after later writes: none.
  BroadcastShape broadcast = shape;
  broadcast.input2[0] = 1;
  EXPECT_FALSE(built_add_overlap(broadcast, 1).allowed);
  EXPECT_TRUE(built_add_overlap(broadcast, 0).allowed);
  EXPECT_FALSE(add_overlap(broadcast, 1, Extension::kDsp).allowed);
  const RequantizeParams rq = prepare_requantize(0.5f, 3, 0.25f, -7);
  Case rq_case{"requantize", kElementwiseOverlap, rng.Int8s(n), static_cast<size_t>(n),
               [&](const int8_t* in, int8_t* out) { requantize(rq, in, out, n); }};
  EXPECT_TRUE(check_case(rq_case));
}

}  // namespace
}  // namespace mote::kernels
