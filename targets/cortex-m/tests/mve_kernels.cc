// The mve kernels (src/kernels/mve/, Helium) against the portable ones, bit for bit, on the
// Cortex-M55 under QEMU (there is no host emulation of Helium). Randomized shapes and parameters
// from a fixed-seed generator: depth and channel tails (the predicated lanes), per-channel
// shifts of both signs, padding, strides, dilation, batches, groups, offsets and clamps; the vector
// requantization on its own against portable's on edge values. Each kernel's planned scratch is
// exactly what it gets, followed by guard bytes that must stay untouched. Static buffers only.

#include <stdint.h>
#include <string.h>

#include "mote/kernels/add.h"
#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "mote/kernels/fully_connected.h"
#include "mote/kernels/mul.h"
#include "mote/kernels/overlap.h"
#include "mote/kernels/pooling.h"
#include "mote/kernels/rows.h"
#include "mote/kernels/scratch.h"
#include "mve/kernels.h"
#include "mve/requantize.h"
#include "platform/console.h"
#include "portable/conv_internal.h"

namespace {

using mote::platform::Line;
namespace k = mote::kernels;

uint32_t state = 0x2545f491u;
uint32_t next_u32() {  // xorshift32
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}
int32_t uniform(int32_t lo, int32_t hi) {
  return lo + static_cast<int32_t>(next_u32() % static_cast<uint32_t>(hi - lo + 1));
}
bool coin(int32_t percent) { return uniform(0, 99) < percent; }

// A folded PAD's geometry: a random output size over `in` rows whose trailing padding may differ
// from the leading `pad` (anything the runtime accepts: in (-stride, extent)); 0 when none fits.
int32_t asymmetric_output(int32_t in, int32_t extent, int32_t stride, int32_t pad) {
  int32_t choices[16];
  int32_t n = 0;
  for (int32_t out = 1; out <= 16; ++out) {
    const int32_t trailing = (out - 1) * stride + extent - in - pad;
    if (trailing > -stride && trailing <= extent - 1) choices[n++] = out;
  }
  return n == 0 ? 0 : choices[uniform(0, n - 1)];
}

// In a third of the cases, the output sizes of `s` (its padding kept) as a folded PAD gives them.
template <typename Shape>
void maybe_asymmetric(Shape& s) {
  if (!coin(35)) return;
  const int32_t h = asymmetric_output(s.input_h, s.dilation_h * (s.filter_h - 1) + 1, s.stride_h,
                                      s.pad_h);
  const int32_t w = asymmetric_output(s.input_w, s.dilation_w * (s.filter_w - 1) + 1, s.stride_w,
                                      s.pad_w);
  if (h > 0 && w > 0) {
    s.output_h = h;
    s.output_w = w;
  }
}

constexpr int32_t kMaxChannels = 48;
constexpr int32_t kGuard = 64;
int8_t input_buf[2 * 12 * 12 * kMaxChannels];
int8_t filter_buf[kMaxChannels * 5 * 5 * kMaxChannels];
int32_t bias_buf[kMaxChannels];
int32_t mult_buf[kMaxChannels];
int32_t shift_buf[kMaxChannels];
int32_t sums_buf[kMaxChannels];
int8_t want_buf[2 * 16 * 16 * kMaxChannels];
int8_t got_buf[2 * 16 * 16 * kMaxChannels + kGuard];
int8_t scratch_buf[8 * 5 * 5 * kMaxChannels + kGuard];
alignas(4) int8_t portable_scratch[4 * 5 * 5 * kMaxChannels];

void fill(int8_t* v, int32_t n, int32_t lo, int32_t hi) {
  for (int32_t i = 0; i < n; ++i) v[i] = static_cast<int8_t>(uniform(lo, hi));
}

// Per-channel quantization as a converter writes it (multiplier in [2^30, 2^31), shift mostly
// right, sometimes left), with the occasional extreme.
void fill_quant(int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    mult_buf[i] = static_cast<int32_t>((1u << 30) + (next_u32() >> 2));
    shift_buf[i] = coin(20) ? uniform(0, 3) : uniform(-14, -1);
    if (coin(5)) shift_buf[i] = -31;
    if (coin(5)) mult_buf[i] = INT32_MAX;
    bias_buf[i] = uniform(-20000, 20000);
  }
}

struct Clamp {
  int32_t offset, min, max;
};
Clamp random_clamp() {
  Clamp c{uniform(-128, 127), -128, 127};
  if (coin(40)) {
    c.min = uniform(-128, 0);
    c.max = uniform(c.min, 127);
  }
  return c;
}

bool guard_intact(const int8_t* p) {
  for (int32_t i = 0; i < kGuard; ++i) {
    if (p[i] != 0x5a) return false;
  }
  return true;
}

struct Tally {
  const char* name;
  int32_t cases = 0;
  int32_t variant_cases = 0;  // cases the mve kernel ran (the table may pick portable)
  int32_t failed = 0;
  void report() const {
    Line line;
    line.text(failed == 0 ? "  ok   " : "  FAIL ").text(name).text(": ").unsigned_number(cases);
    line.text(" cases, ").unsigned_number(variant_cases).text(" on mve");
    if (failed != 0) line.text(", ").unsigned_number(failed).text(" differ");
    line.end();
  }
};

void fail_line(const char* what, int32_t index, int32_t at) {
  Line().text("    ").text(what).text(" case ").unsigned_number(index).text(" differs at byte ")
      .signed_number(at).end();
}

int32_t first_difference(const int8_t* a, const int8_t* b, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return i;
  }
  return -1;
}

// mve::requantize on four lanes against portable's requantize_fast, lane by lane.
void check_requantize(Tally& t) {
  const int32_t accs[] = {0, 1, -1, 2, -2, 3, -3, INT32_MAX, INT32_MIN, INT32_MIN + 1, 1 << 30,
                          -(1 << 30), 12345, -12345, 0x40000000 - 1, -0x40000001};
  const int32_t mults[] = {0, 1, INT32_MAX, INT32_MIN, 1 << 30, (1 << 30) + 1, 1518500250, -5};
  int32_t acc_v[4], mult_v[4], shift_v[4], got[4];
  for (int32_t round = 0; round < 4000; ++round) {
    for (int32_t lane = 0; lane < 4; ++lane) {
      acc_v[lane] = coin(30) ? accs[uniform(0, 15)] : static_cast<int32_t>(next_u32()) >> uniform(0, 31);
      mult_v[lane] = coin(30) ? mults[uniform(0, 7)] : static_cast<int32_t>(next_u32() >> 1);
      shift_v[lane] = uniform(-31, 31);
    }
    const int32x4_t m = vldrwq_s32(mult_v);
    vstrwq_s32(got, k::mve::requantize(vldrwq_s32(acc_v), m, k::mve::split_shifts(vldrwq_s32(shift_v))));
    // The scalar-register form: one multiplier and shift for all lanes (lane 0's), and without
    // the left shift when the shift is negative.
    int32_t got_n[4], got_right[4];
    const int32x4_t acc = vldrwq_s32(acc_v);
    vstrwq_s32(got_n, k::mve::requantize_n(acc, mult_v[0], shift_v[0]));
    vstrwq_s32(got_right, k::mve::requantize_n<false>(acc, mult_v[0], shift_v[0] < 0 ? shift_v[0] : -1));
    ++t.cases;
    ++t.variant_cases;
    for (int32_t lane = 0; lane < 4; ++lane) {
      const int32_t want = k::internal::requantize_fast(acc_v[lane], mult_v[lane], shift_v[lane]);
      const int32_t want_n = k::internal::requantize_fast(acc_v[lane], mult_v[0], shift_v[0]);
      const int32_t want_right =
          k::internal::requantize_fast(acc_v[lane], mult_v[0], shift_v[0] < 0 ? shift_v[0] : -1);
      if (got_n[lane] != want_n || got_right[lane] != want_right) {
        if (t.failed++ < 4) Line().text("    requantize_n differs, lane 0 shift ").signed_number(shift_v[0]).end();
        break;
      }
      if (got[lane] != want) {
        if (t.failed++ < 4) {
          Line().text("    requantize ").signed_number(acc_v[lane]).text(" * ").signed_number(mult_v[lane])
              .text(" shift ").signed_number(shift_v[lane]).text(": ").signed_number(got[lane])
              .text(" (expected ").signed_number(want).text(")").end();
        }
        break;
      }
    }
  }
}

void check_conv(Tally& t) {
  for (int32_t index = 0; index < 160; ++index) {
    k::ConvParams p{};
    k::ConvShape& s = p.shape;
    const bool pointwise = coin(45);
    s.batches = uniform(1, 2);
    s.input_c = s.filter_c = coin(30) ? 16 * uniform(1, 3) : uniform(1, kMaxChannels);
    // Grouped (a fifth of the cases): 2 to 6 groups of 1 to 20 channels.
    const bool grouped = coin(20);
    int32_t groups = 1;
    if (grouped) {
      groups = uniform(2, 6);
      s.filter_c = uniform(1, kMaxChannels / groups < 20 ? kMaxChannels / groups : 20);
      s.input_c = groups * s.filter_c;
    }
    s.filter_h = pointwise ? 1 : uniform(1, 5);
    s.filter_w = pointwise ? 1 : uniform(1, 5);
    s.stride_h = uniform(1, 2);
    s.stride_w = uniform(1, 2);
    s.dilation_h = coin(20) ? 2 : 1;
    s.dilation_w = coin(20) ? 2 : 1;
    s.pad_h = pointwise ? 0 : uniform(0, s.filter_h - 1);
    s.pad_w = pointwise ? 0 : uniform(0, s.filter_w - 1);
    s.input_h = uniform(1 + s.dilation_h * (s.filter_h - 1) - 2 * s.pad_h > 1
                            ? 1 + s.dilation_h * (s.filter_h - 1) - 2 * s.pad_h
                            : 1,
                        12);
    s.input_w = uniform(1 + s.dilation_w * (s.filter_w - 1) - 2 * s.pad_w > 1
                            ? 1 + s.dilation_w * (s.filter_w - 1) - 2 * s.pad_w
                            : 1,
                        12);
    s.output_h = (s.input_h + 2 * s.pad_h - s.dilation_h * (s.filter_h - 1) - 1) / s.stride_h + 1;
    s.output_w = (s.input_w + 2 * s.pad_w - s.dilation_w * (s.filter_w - 1) - 1) / s.stride_w + 1;
    maybe_asymmetric(s);
    s.output_c = grouped ? groups * uniform(1, 24 / groups) : uniform(1, 21);
    const Clamp c = random_clamp();
    p.input_offset = uniform(-127, 128);
    p.output_offset = c.offset;
    p.act_min = c.min;
    p.act_max = c.max;
    p.output_multiplier = mult_buf;
    p.output_shift = shift_buf;
    fill_quant(s.output_c);
    fill(input_buf, s.batches * s.input_h * s.input_w * s.input_c, -128, 127);
    fill(filter_buf, s.output_c * s.filter_h * s.filter_w * s.filter_c, -127, 127);
    const int32_t* bias = coin(85) ? bias_buf : nullptr;
    const int32_t n = s.batches * s.output_h * s.output_w * s.output_c;

    const size_t planned = k::built_conv_scratch_bytes(s);
    memset(scratch_buf, 0x5a, sizeof(scratch_buf));
    memset(got_buf, 0x5a, sizeof(got_buf));
    k::portable_conv2d(p, input_buf, filter_buf, bias, want_buf,
                       k::Scratch{portable_scratch, sizeof(portable_scratch)});
    k::conv2d(p, input_buf, filter_buf, bias, got_buf, k::Scratch{scratch_buf, planned});
    ++t.cases;
    if (strcmp(k::built_conv_kernel_variant(s), "mve") == 0) ++t.variant_cases;
    const int32_t at = first_difference(got_buf, want_buf, n);
    if (at >= 0 || !guard_intact(got_buf + n) || !guard_intact(scratch_buf + planned)) {
      if (t.failed++ < 4) fail_line("conv", index, at);
    }
  }
}

void check_depthwise(Tally& t) {
  for (int32_t index = 0; index < 160; ++index) {
    k::DepthwiseConvParams p{};
    k::DepthwiseShape& s = p.shape;
    s.batches = uniform(1, 2);
    s.input_c = coin(30) ? 8 * uniform(1, 6) : uniform(1, kMaxChannels);
    s.output_c = s.input_c;
    if (coin(25)) {  // depth multipliers above 1, the one-input-channel case among them
      if (coin(30)) s.input_c = 1;
      const int32_t m = uniform(2, 9);
      s.input_c = s.input_c * m > kMaxChannels ? 1 + s.input_c % 4 : s.input_c;
      s.output_c = s.input_c * m;
    }
    const bool three = coin(50);
    s.filter_h = three ? 3 : uniform(1, 5);
    s.filter_w = three ? 3 : coin(25) ? 7 : uniform(1, 5);
    s.stride_h = uniform(1, 2);
    s.stride_w = uniform(1, 2);
    s.dilation_h = coin(20) ? 2 : 1;
    s.dilation_w = coin(20) && s.filter_w < 7 ? 2 : 1;  // (7 wide dilated: beyond the buffers)
    int32_t max_h = 12, max_w = 12;
    const int32_t kind = uniform(0, 9);
    if (kind == 0) {
      // One input channel: filters up to 20 wide (chunks of eight columns and their tails).
      s.input_c = 1;
      s.output_c = uniform(2, 16);
      s.filter_w = uniform(1, 20);
      s.dilation_w = 1;
      max_w = 24;
    } else if (kind == 1) {
      // A column (1-D windows along the height), any multiplier 1 layer: run as a row.
      s.input_c = s.output_c = uniform(1, kMaxChannels);
      s.filter_h = uniform(1, 16);
      s.filter_w = 1;
      max_h = 40;
      max_w = 1;
    }
    s.pad_h = uniform(0, s.filter_h - 1);
    s.pad_w = uniform(0, s.filter_w - 1);
    const int32_t min_h = 1 + s.dilation_h * (s.filter_h - 1) - 2 * s.pad_h;
    const int32_t min_w = 1 + s.dilation_w * (s.filter_w - 1) - 2 * s.pad_w;
    s.input_h = uniform(min_h > 1 ? min_h : 1, max_h > min_h ? max_h : min_h);
    s.input_w = uniform(min_w > 1 ? min_w : 1, max_w > min_w ? max_w : min_w);
    s.output_h = (s.input_h + 2 * s.pad_h - s.dilation_h * (s.filter_h - 1) - 1) / s.stride_h + 1;
    s.output_w = (s.input_w + 2 * s.pad_w - s.dilation_w * (s.filter_w - 1) - 1) / s.stride_w + 1;
    maybe_asymmetric(s);
    const Clamp c = random_clamp();
    p.input_offset = uniform(-127, 128);
    p.output_offset = c.offset;
    p.act_min = c.min;
    p.act_max = c.max;
    p.output_multiplier = mult_buf;
    p.output_shift = shift_buf;
    fill_quant(s.output_c);
    fill(input_buf, s.batches * s.input_h * s.input_w * s.input_c, -128, 127);
    fill(filter_buf, s.filter_h * s.filter_w * s.output_c, -127, 127);
    const int32_t* bias = coin(85) ? bias_buf : nullptr;
    const int32_t n = s.batches * s.output_h * s.output_w * s.output_c;

    const size_t planned = k::built_depthwise_conv_scratch_bytes(s);
    if (kind == 0 && planned == 0) ++t.failed;  // the single-input path needs its scratch
    memset(scratch_buf, 0x5a, sizeof(scratch_buf));
    memset(got_buf, 0x5a, sizeof(got_buf));
    k::portable_depthwise_conv2d(p, input_buf, filter_buf, bias, want_buf, k::Scratch{nullptr, 0});
    // As the runtime runs them: one input channel through its own entry.
    if (kind == 0) {
      // The mve one-input kernel itself (the public entry would fall back to the general one,
      // with the same bytes, were it to refuse).
      if (!k::mve::depthwise_conv2d_one_input(p, input_buf, filter_buf, bias, got_buf,
                                              k::Scratch{scratch_buf, planned})) {
        ++t.failed;
      }
    } else {
      k::depthwise_conv2d(p, input_buf, filter_buf, bias, got_buf,
                          k::Scratch{scratch_buf, planned});
    }
    ++t.cases;
    if (strcmp(k::built_depthwise_conv_kernel_variant(s), "mve") == 0) ++t.variant_cases;
    const int32_t at = first_difference(got_buf, want_buf, n);
    if (at >= 0 || !guard_intact(got_buf + n) || !guard_intact(scratch_buf + planned)) {
      if (t.failed++ < 4) fail_line("depthwise", index, at);
    }
  }
}

void check_fully_connected(Tally& t) {
  for (int32_t index = 0; index < 160; ++index) {
    k::FullyConnectedParams p{};
    p.batches = uniform(1, 3);
    p.input_depth = coin(30) ? 16 * uniform(1, 8) : uniform(1, 130);
    p.output_depth = uniform(1, kMaxChannels);
    const Clamp c = random_clamp();
    p.input_offset = uniform(-127, 128);
    p.filter_offset = coin(30) ? uniform(-127, 128) : 0;
    p.output_offset = c.offset;
    p.act_min = c.min;
    p.act_max = c.max;
    p.per_channel = coin(50);
    p.output_multiplier = mult_buf;
    p.output_shift = shift_buf;
    fill_quant(p.output_depth);
    fill(input_buf, p.batches * p.input_depth, -128, 127);
    fill(filter_buf, p.output_depth * p.input_depth, -127, 127);
    const int32_t* bias = coin(85) ? bias_buf : nullptr;
    if (coin(50)) {
      k::fully_connected_kernel_sums(p, filter_buf, bias, sums_buf);
      p.kernel_sums = sums_buf;
    }
    const int32_t n = p.batches * p.output_depth;

    memset(got_buf, 0x5a, sizeof(got_buf));
    k::portable_fully_connected(p, input_buf, filter_buf, bias, want_buf);
    k::fully_connected(p, input_buf, filter_buf, bias, got_buf);
    ++t.cases;
    if (strcmp(k::built_fully_connected_kernel_variant(p.output_depth), "mve") == 0) ++t.variant_cases;
    const int32_t at = first_difference(got_buf, want_buf, n);
    if (at >= 0 || !guard_intact(got_buf + n)) {
      if (t.failed++ < 4) fail_line("fully connected", index, at);
    }
  }
}

// A broadcast of about n output elements: [rows, cols] against [1, cols] (a per-channel operand;
// a scalar when cols is 1, a third of the time), the repeated operand input 1 or 2 (the mve
// kernels take rows of at least four and scalars, portable the rest); its element count.
int32_t broadcast_case(int32_t n, k::BroadcastShape* shape, bool* first_repeated) {
  const int32_t cols = coin(30) ? 1 : uniform(1, 16);
  const int32_t rows = n / cols > 0 ? n / cols : 1;
  const int32_t full[2] = {rows, cols}, run[2] = {1, cols};
  *first_repeated = coin(50);
  if (*first_repeated) {
    k::prepare_broadcast_shape(run, 2, full, 2, shape);
  } else {
    k::prepare_broadcast_shape(full, 2, run, 2, shape);
  }
  return rows * cols;
}

void check_add(Tally& t) {
  for (int32_t index = 0; index < 120; ++index) {
    const float s1 = 0.01f + 0.001f * static_cast<float>(uniform(0, 200));
    const float s2 = 0.01f + 0.001f * static_cast<float>(uniform(0, 200));
    const float so = 0.01f + 0.001f * static_cast<float>(uniform(0, 300));
    const Clamp c = random_clamp();
    const k::AddParams p = k::prepare_add(s1, uniform(-128, 127), s2, uniform(-128, 127), so,
                                          c.offset, c.min, c.max);
    if (!k::add_fits(p)) continue;
    const int32_t n = uniform(1, 2 * 12 * 12 * kMaxChannels / 2);
    k::BroadcastShape shape = k::elementwise_shape(n);
    int32_t count = n;
    bool first_repeated = false;  // input 1 the broadcast operand
    if (coin(25)) {
      count = broadcast_case(n, &shape, &first_repeated);
    }
    int8_t* in1 = input_buf;
    int8_t* in2 = input_buf + 2 * 12 * 12 * kMaxChannels / 2;
    fill(in1, count, -128, 127);
    fill(in2, count, -128, 127);
    memset(got_buf, 0x5a, sizeof(got_buf));
    k::portable_add(p, shape, in1, in2, want_buf);
    const bool in_place = !first_repeated && coin(30);
    if (in_place) {
      k::add(p, shape, in1, in2, in1);
      memcpy(got_buf, in1, static_cast<size_t>(count));
    } else {
      k::add(p, shape, in1, in2, got_buf);
    }
    ++t.cases;
    if (strcmp(k::built_add_kernel_variant(shape), "mve") == 0) ++t.variant_cases;
    const int32_t at = first_difference(got_buf, want_buf, count);
    if (at >= 0 || (!in_place && !guard_intact(got_buf + count))) {
      if (t.failed++ < 4) fail_line("add", index, at);
    }
  }
}

// MUL: parameters as TFLite prepares them from random scales and raw ones (any output shift the
// load check takes, multipliers up to INT32_MAX, narrowed clamps); every fifth case has all
// inputs at -128 or 127 (the extreme products); lengths across the eight-lane steps and the
// predicated tail; a third run in place (output = input 1, when it is not the broadcast one), as
// the runtime runs it; a quarter broadcasts (broadcast_case).
void check_mul(Tally& t) {
  for (int32_t index = 0; index < 200; ++index) {
    k::MulParams p{};
    if (index % 2 == 0) {
      const auto scale = [] { return 0.0005f + 0.0005f * static_cast<float>(uniform(0, 400)); };
      const Clamp c = random_clamp();
      p = k::prepare_mul(scale(), uniform(-128, 127), scale(), uniform(-128, 127), scale(),
                         c.offset, c.min, c.max);
    } else {
      p.input1_offset = uniform(-127, 128);
      p.input2_offset = uniform(-127, 128);
      p.output_offset = uniform(-128, 127);
      p.output_multiplier = coin(10) ? INT32_MAX : uniform(1 << 30, INT32_MAX);
      p.output_shift = uniform(-31, 1);
      p.act_min = coin(30) ? uniform(-128, 0) : -128;
      p.act_max = coin(30) ? uniform(p.act_min, 127) : 127;
    }
    if (!k::mul_fits(p)) continue;
    const int32_t n = coin(50) ? uniform(1, 40) : uniform(1, 2 * 12 * 12 * kMaxChannels / 2);
    k::BroadcastShape shape = k::elementwise_shape(n);
    int32_t count = n;
    bool first_repeated = false;  // input 1 the broadcast operand
    if (coin(25)) {
      count = broadcast_case(n, &shape, &first_repeated);
    }
    int8_t* in1 = input_buf;
    int8_t* in2 = input_buf + 2 * 12 * 12 * kMaxChannels / 2;
    // Extremes: all of input 1 at -128 or 127, and of input 2, in the four combinations.
    const bool extreme = index % 5 == 0;
    const int32_t e1 = (index / 5) % 2 == 0 ? -128 : 127, e2 = (index / 10) % 2 == 0 ? -128 : 127;
    fill(in1, count, extreme ? e1 : -128, extreme ? e1 : 127);
    fill(in2, count, extreme ? e2 : -128, extreme ? e2 : 127);
    memset(got_buf, 0x5a, sizeof(got_buf));
    k::portable_mul(p, shape, in1, in2, want_buf);
    const bool in_place = !first_repeated && coin(30);
    if (in_place) {
      k::mul(p, shape, in1, in2, in1);
      memcpy(got_buf, in1, static_cast<size_t>(count));
    } else {
      k::mul(p, shape, in1, in2, got_buf);
    }
    ++t.cases;
    if (strcmp(k::built_mul_kernel_variant(shape), "mve") == 0) ++t.variant_cases;
    const int32_t at = first_difference(got_buf, want_buf, count);
    if (at >= 0 || (!in_place && !guard_intact(got_buf + count))) {
      if (t.failed++ < 4) fail_line(in_place ? "mul in place" : "mul", index, at);
    }
  }
}

void check_pooling(Tally& t) {
  for (int32_t index = 0; index < 240; ++index) {
    const int32_t batches = uniform(1, 2), h = uniform(1, 12), w = uniform(1, 12);
    const int32_t channels = coin(30) ? 8 * uniform(1, 6) : uniform(1, kMaxChannels);
    const int32_t fh = coin(15) ? h : uniform(1, 4), fw = coin(15) ? w : uniform(1, 4);
    const bool same = coin(50);
    if (!same && (fh > h || fw > w)) continue;
    const Clamp c = random_clamp();
    k::PoolParams p = k::prepare_pool(batches, h, w, channels, fh, fw, uniform(1, 3),
                                      uniform(1, 3), same, c.min, c.max);
    if (coin(35)) {  // a folded PAD's leading padding and output size
      const int32_t pad_h = uniform(0, fh - 1), pad_w = uniform(0, fw - 1);
      const int32_t oh = asymmetric_output(h, fh, p.stride_h, pad_h);
      const int32_t ow = asymmetric_output(w, fw, p.stride_w, pad_w);
      if (oh > 0 && ow > 0) {
        p.pad_h = pad_h;
        p.pad_w = pad_w;
        p.output_h = oh;
        p.output_w = ow;
      }
    }
    fill(input_buf, batches * h * w * channels, -128, 127);
    const int32_t n = batches * p.output_h * p.output_w * channels;
    memset(got_buf, 0x5a, sizeof(got_buf));
    const bool average = index % 2 == 0;
    if (average) {
      k::portable_average_pool(p, input_buf, want_buf, k::Scratch{nullptr, 0});
      k::average_pool(p, input_buf, got_buf, k::Scratch{nullptr, 0});
    } else {
      k::portable_max_pool(p, input_buf, want_buf);
      k::max_pool(p, input_buf, got_buf);
    }
    ++t.cases;
    const char* variant = average ? k::built_average_pool_kernel_variant(p)
                                  : k::built_max_pool_kernel_variant(p);
    if (strcmp(variant, "mve") == 0) ++t.variant_cases;
    const int32_t at = first_difference(got_buf, want_buf, n);
    if (at >= 0 || !guard_intact(got_buf + n)) {
      if (t.failed++ < 4) fail_line(average ? "average pool" : "max pool", index, at);
    }
  }
}

// Row calls (mote/kernels/rows.h): a case's output rows computed in ranges (single rows, up to
// three, or random lengths up to the whole map) through input rings of the minimal size for its
// ranges (wrapped windows on most rows), larger rings and whole maps, and output rings likewise;
// compared byte for byte with the whole-tensor portable kernel. Before each call the input
// slots the call must not read hold random bytes, and every output byte outside the call's rows
// must stay untouched. An input ring one row short must leave the output untouched.
struct RowGeometry {
  int32_t input_h, output_h, filter_h, stride_h, pad_h, dilation_h;
  int32_t in_row, out_row;  // bytes of one input and one output row
};

int8_t ring_in[2 * 12 * 12 * kMaxChannels];
int8_t ring_out[2 * 16 * 16 * kMaxChannels + kGuard];

k::RowRange rows_read(const RowGeometry& g, int32_t y0, int32_t y1) {
  return k::window_input_rows(g.input_h, g.filter_h, g.stride_h, g.pad_h, g.dilation_h, y0, y1);
}

// The input ring for output rows [y0, y1): the rows they read in their slots, random bytes in the
// others.
void load_ring(const RowGeometry& g, const int8_t* input, int32_t ring_rows, int32_t y0, int32_t y1) {
  const int32_t slots = ring_rows > 0 ? ring_rows : g.input_h;
  fill(ring_in, slots * g.in_row, -128, 127);
  const k::RowRange r = rows_read(g, y0, y1);
  for (int32_t iy = r.first; iy < r.end; ++iy) {
    const int32_t slot = ring_rows > 0 ? iy % ring_rows : iy;
    memcpy(ring_in + slot * g.in_row, input + iy * g.in_row, static_cast<size_t>(g.in_row));
  }
}

// run(input, input_ring, output, output_ring, y0, y1) over the case's ranges; the first failure
// (a byte offset into the whole output, or -2 for a write outside the call's rows), -1 if none.
template <typename Run>
int32_t stream_rows(const RowGeometry& g, const int8_t* input, const int8_t* want, const Run& run) {
  constexpr int32_t kMaxRanges = 64;
  int32_t begins[kMaxRanges + 1];
  int32_t ranges = 0;
  const int32_t mode = uniform(0, 2);  // single rows, up to three, any length
  for (int32_t y = 0; y < g.output_h && ranges < kMaxRanges; ++ranges) {
    begins[ranges] = y;
    const int32_t len = mode == 0 ? 1 : uniform(1, mode == 1 ? 3 : g.output_h);
    y = y + len < g.output_h ? y + len : g.output_h;
  }
  begins[ranges] = g.output_h;
  int32_t need_in = 1, need_out = 1;
  for (int32_t i = 0; i < ranges; ++i) {
    const int32_t in = rows_read(g, begins[i], begins[i + 1]).count();
    need_in = in > need_in ? in : need_in;
    const int32_t out = begins[i + 1] - begins[i];
    need_out = out > need_out ? out : need_out;
  }
  // Mostly minimal rings (most windows wrap), sometimes larger, sometimes the whole map.
  const int32_t pick_in = uniform(0, 9), pick_out = uniform(0, 9);
  const int32_t in_rows = pick_in < 6 ? need_in : pick_in < 9 ? need_in + uniform(1, 3) : 0;
  const int32_t out_rows = pick_out < 6 ? need_out : pick_out < 9 ? need_out + uniform(1, 2) : 0;
  const int32_t out_bytes = (out_rows > 0 ? out_rows : g.output_h) * g.out_row;
  // An input ring one row short of the first range's rows: refused, nothing written.
  const int32_t first_need = rows_read(g, begins[0], begins[1]).count();
  if (first_need > 1) {
    load_ring(g, input, first_need - 1, begins[0], begins[1]);
    memset(ring_out, 0x5a, static_cast<size_t>(out_bytes + kGuard));
    run(ring_in, k::RowRing{first_need - 1}, ring_out, k::RowRing{out_rows}, begins[0], begins[1]);
    for (int32_t i = 0; i < out_bytes + kGuard; ++i) {
      if (ring_out[i] != 0x5a) return -2;
    }
  }
  for (int32_t i = 0; i < ranges; ++i) {
    const int32_t y0 = begins[i], y1 = begins[i + 1];
    load_ring(g, input, in_rows, y0, y1);
    memset(ring_out, 0x5a, static_cast<size_t>(out_bytes + kGuard));
    run(ring_in, k::RowRing{in_rows}, ring_out, k::RowRing{out_rows}, y0, y1);
    int32_t written = 0;
    for (int32_t y = y0; y < y1; ++y) {
      const int32_t slot = out_rows > 0 ? y % out_rows : y;
      const int32_t at = first_difference(ring_out + slot * g.out_row, want + y * g.out_row, g.out_row);
      if (at >= 0) return y * g.out_row + at;
      written += g.out_row;
    }
    // Every other byte untouched (the rows' slots are distinct: out_rows >= y1 - y0).
    int32_t untouched = 0;
    for (int32_t j = 0; j < out_bytes + kGuard; ++j) untouched += ring_out[j] == 0x5a ? 1 : 0;
    int32_t sentinel_in_rows = 0;
    for (int32_t y = y0; y < y1; ++y) {
      const int8_t* row = ring_out + (out_rows > 0 ? y % out_rows : y) * g.out_row;
      for (int32_t j = 0; j < g.out_row; ++j) sentinel_in_rows += row[j] == 0x5a ? 1 : 0;
    }
    if (untouched - sentinel_in_rows != out_bytes + kGuard - written) return -2;
  }
  return -1;
}

// The streamed global average pool: random shapes' rows accumulated in random ranges through a
// ring that holds the range (or the whole map), the sums compared with portable's accumulate
// after every call and the finished output with portable's whole-tensor average pool.
void check_global_pool_rows(Tally& t) {
  static int32_t want_sums[kMaxChannels];
  for (int32_t index = 0; index < 120; ++index) {
    const int32_t h = uniform(1, 12), w = uniform(1, 12);
    const int32_t channels = coin(30) ? 4 * uniform(1, 12) : uniform(1, kMaxChannels);
    const Clamp c = random_clamp();
    const k::PoolParams p = k::prepare_pool(1, h, w, channels, h, w, 1, 1, false, c.min, c.max);
    fill(input_buf, h * w * channels, -128, 127);
    const int32_t row = w * channels;
    const int32_t longest = uniform(1, h);
    const int32_t ring = coin(25) ? 0 : longest;
    // Stale sums: the call with y_begin 0 must zero them.
    for (int32_t i = 0; i < kMaxChannels; ++i) sums_buf[i] = want_sums[i] = uniform(-99, 99);
    bool same = true;
    for (int32_t y0 = 0; y0 < h;) {
      const int32_t end = y0 + uniform(1, longest);
      const int32_t y1 = end < h ? end : h;
      const int8_t* in = input_buf;
      if (ring > 0) {
        fill(ring_in, ring * row, -128, 127);
        for (int32_t y = y0; y < y1; ++y) memcpy(ring_in + (y % ring) * row, input_buf + y * row, row);
        in = ring_in;
      }
      k::global_average_pool_accumulate(p, in, k::RowRing{ring}, y0, y1, sums_buf);
      k::portable_global_average_pool_accumulate(p, in, k::RowRing{ring}, y0, y1, want_sums);
      for (int32_t i = 0; i < kMaxChannels; ++i) same = same && sums_buf[i] == want_sums[i];
      y0 = y1;
    }
    memset(got_buf, 0x5a, sizeof(got_buf));
    k::global_average_pool_finish(p, sums_buf, got_buf);
    k::portable_average_pool(p, input_buf, want_buf, k::Scratch{nullptr, 0});
    ++t.cases;
    if (strcmp(k::built_average_pool_kernel_variant(p), "mve") == 0) ++t.variant_cases;
    const int32_t at = first_difference(got_buf, want_buf, channels);
    if (!same || at >= 0 || !guard_intact(got_buf + channels)) {
      if (t.failed++ < 4) fail_line("global pool rows", index, same ? at : -3);
    }
  }
}

void check_conv_rows(Tally& t) {
  for (int32_t index = 0; index < 160; ++index) {
    k::ConvParams p{};
    k::ConvShape& s = p.shape;
    // 1x1 s1 and s2, 3x3 s1 and s2, 10x4 s2 (keyword spotting's first layer), random, grouped.
    const int32_t kind = uniform(0, 6);
    s.batches = 1;
    s.input_c = s.filter_c = coin(20) ? 16 * uniform(1, 2) : uniform(1, 40);
    s.dilation_h = s.dilation_w = 1;
    s.stride_h = s.stride_w = 1;
    s.pad_h = s.pad_w = 0;
    s.input_h = uniform(1, 12);
    s.input_w = uniform(1, 12);
    int32_t groups = 1;
    if (kind <= 1) {
      s.filter_h = s.filter_w = 1;
      s.stride_h = s.stride_w = kind + 1;
      if (coin(40)) {
        // Rows of 5 or 9 pixels deeper than 16: a row call's last five pixels as one block.
        s.input_c = s.filter_c = uniform(17, 40);
        s.input_w = (coin(50) ? 5 : 9) * s.stride_w - uniform(0, s.stride_w - 1);
      }
    } else if (kind <= 3) {
      s.filter_h = s.filter_w = 3;
      s.stride_h = s.stride_w = kind - 1;
      s.pad_h = s.pad_w = uniform(0, 1);
    } else if (kind == 4) {
      s.input_c = s.filter_c = uniform(1, 3);
      s.filter_h = 10;
      s.filter_w = 4;
      s.stride_h = s.stride_w = 2;
      s.pad_h = uniform(0, 4);
      s.pad_w = uniform(0, 1);
      s.input_h = uniform(10, 25);
      s.input_w = uniform(4, 11);
    } else {
      s.filter_h = uniform(1, 5);
      s.filter_w = uniform(1, 5);
      s.stride_h = uniform(1, 2);
      s.stride_w = uniform(1, 2);
      s.dilation_h = coin(25) ? 2 : 1;
      s.dilation_w = coin(25) ? 2 : 1;
      s.pad_h = uniform(0, s.filter_h - 1);
      s.pad_w = uniform(0, s.filter_w - 1);
      if (kind == 6) {
        groups = uniform(2, 5);
        s.filter_c = uniform(1, 8);
        s.input_c = groups * s.filter_c;
      }
    }
    const int32_t min_h = 1 + s.dilation_h * (s.filter_h - 1) - 2 * s.pad_h;
    const int32_t min_w = 1 + s.dilation_w * (s.filter_w - 1) - 2 * s.pad_w;
    if (s.input_h < min_h) s.input_h = min_h;
    if (s.input_w < min_w) s.input_w = min_w;
    s.output_h = (s.input_h + 2 * s.pad_h - s.dilation_h * (s.filter_h - 1) - 1) / s.stride_h + 1;
    s.output_w = (s.input_w + 2 * s.pad_w - s.dilation_w * (s.filter_w - 1) - 1) / s.stride_w + 1;
    s.output_c = groups * uniform(1, 21 / groups);
    const Clamp c = random_clamp();
    p.input_offset = uniform(-127, 128);
    p.output_offset = c.offset;
    p.act_min = c.min;
    p.act_max = c.max;
    p.output_multiplier = mult_buf;
    p.output_shift = shift_buf;
    fill_quant(s.output_c);
    // Every shift negative, and half of those calls saying so (right_shifts_only, which a
    // stage's words carry): the same bytes.
    if (coin(30)) {
      for (int32_t i = 0; i < s.output_c; ++i) shift_buf[i] = uniform(-14, -1);
      p.right_shifts_only = coin(50) ? 1 : 0;
    }
    fill(input_buf, s.input_h * s.input_w * s.input_c, -128, 127);
    fill(filter_buf, s.output_c * s.filter_h * s.filter_w * s.filter_c, -127, 127);
    const int32_t* bias = coin(85) ? bias_buf : nullptr;
    k::portable_conv2d(p, input_buf, filter_buf, bias, want_buf,
                       k::Scratch{portable_scratch, sizeof(portable_scratch)});
    const size_t planned = k::built_conv_scratch_bytes(s);
    const RowGeometry g{s.input_h, s.output_h, s.filter_h, s.stride_h, s.pad_h, s.dilation_h,
                        s.input_w * s.input_c, s.output_w * s.output_c};
    memset(scratch_buf, 0x5a, sizeof(scratch_buf));
    const int32_t at = stream_rows(g, input_buf, want_buf,
        [&](const int8_t* in, k::RowRing in_ring, int8_t* out, k::RowRing out_ring, int32_t y0, int32_t y1) {
          k::conv2d_rows(p, in, in_ring, filter_buf, bias, out, out_ring, y0, y1,
                         k::Scratch{scratch_buf, planned});
        });
    ++t.cases;
    if (strcmp(k::built_conv_kernel_variant(s), "mve") == 0) ++t.variant_cases;
    if (at != -1 || !guard_intact(scratch_buf + planned)) {
      if (t.failed++ < 4) fail_line("conv rows", index, at);
    }
  }
}

void check_depthwise_rows(Tally& t) {
  for (int32_t index = 0; index < 160; ++index) {
    k::DepthwiseConvParams p{};
    k::DepthwiseShape& s = p.shape;
    // 3x3 s1 and s2, random, depth multipliers above 1.
    const int32_t kind = uniform(0, 4);
    s.batches = 1;
    s.input_c = coin(20) ? 8 * uniform(1, 4) : uniform(1, 40);
    s.output_c = s.input_c;
    s.dilation_h = s.dilation_w = 1;
    if (kind <= 1) {
      s.filter_h = s.filter_w = 3;
      s.stride_h = s.stride_w = kind + 1;
      s.pad_h = s.pad_w = uniform(0, 1);
    } else {
      s.filter_h = uniform(1, 5);
      s.filter_w = uniform(1, 5);
      s.stride_h = uniform(1, 2);
      s.stride_w = uniform(1, 2);
      s.dilation_h = coin(25) ? 2 : 1;
      s.dilation_w = coin(25) ? 2 : 1;
      s.pad_h = uniform(0, s.filter_h - 1);
      s.pad_w = uniform(0, s.filter_w - 1);
      if (kind == 3) {
        const int32_t m = uniform(2, 5);
        s.input_c = uniform(1, 9);
        s.output_c = s.input_c * m;
      }
      if (kind == 4) {  // one input channel, filters up to 12 wide
        s.input_c = 1;
        s.output_c = uniform(2, 12);
        s.filter_w = uniform(1, 12);
        s.dilation_w = 1;
        s.pad_w = uniform(0, s.filter_w - 1);
      }
    }
    const int32_t min_h = 1 + s.dilation_h * (s.filter_h - 1) - 2 * s.pad_h;
    const int32_t min_w = 1 + s.dilation_w * (s.filter_w - 1) - 2 * s.pad_w;
    s.input_h = uniform(min_h > 1 ? min_h : 1, 12);
    s.input_w = uniform(min_w > 1 ? min_w : 1, 12);
    s.output_h = (s.input_h + 2 * s.pad_h - s.dilation_h * (s.filter_h - 1) - 1) / s.stride_h + 1;
    s.output_w = (s.input_w + 2 * s.pad_w - s.dilation_w * (s.filter_w - 1) - 1) / s.stride_w + 1;
    const Clamp c = random_clamp();
    p.input_offset = uniform(-127, 128);
    p.output_offset = c.offset;
    p.act_min = c.min;
    p.act_max = c.max;
    p.output_multiplier = mult_buf;
    p.output_shift = shift_buf;
    fill_quant(s.output_c);
    fill(input_buf, s.input_h * s.input_w * s.input_c, -128, 127);
    fill(filter_buf, s.filter_h * s.filter_w * s.output_c, -127, 127);
    const int32_t* bias = coin(85) ? bias_buf : nullptr;
    k::portable_depthwise_conv2d(p, input_buf, filter_buf, bias, want_buf, k::Scratch{nullptr, 0});
    const RowGeometry g{s.input_h, s.output_h, s.filter_h, s.stride_h, s.pad_h, s.dilation_h,
                        s.input_w * s.input_c, s.output_w * s.output_c};
    const size_t planned = k::built_depthwise_conv_scratch_bytes(s);
    memset(scratch_buf, 0x5a, sizeof(scratch_buf));
    const int32_t at = stream_rows(g, input_buf, want_buf,
        [&](const int8_t* in, k::RowRing in_ring, int8_t* out, k::RowRing out_ring, int32_t y0, int32_t y1) {
          k::depthwise_conv2d_rows(p, in, in_ring, filter_buf, bias, out, out_ring, y0, y1,
                                   k::Scratch{scratch_buf, planned});
        });
    ++t.cases;
    if (strcmp(k::built_depthwise_conv_kernel_variant(s), "mve") == 0) ++t.variant_cases;
    if (at != -1 || !guard_intact(scratch_buf + planned)) {
      if (t.failed++ < 4) fail_line("depthwise rows", index, at);
    }
  }
}

// Overlap rules (mote/kernels/overlap.h) of the mve rows on real bytes: each case runs with
// separate buffers, then with its output placed `lead` bytes before its input in one arena (and
// 1, 16 and 64 bytes further away), and must match bit for bit, at the kernel's own lead and at
// the declared one (joined with portable's); for each rule some case must go wrong one alignment
// step (16 bytes) closer than the kernel's own lead, so the rule is tight.
constexpr int32_t kOverlapArena = 20000;
int8_t overlap_arena[kOverlapArena];
int8_t overlap_input[4096];
int8_t overlap_want[4096];

enum class OverlapKind { kConv, kDepthwise, kAveragePool, kMaxPool, kAdd };

struct OverlapCase {
  OverlapKind kind;
  k::ConvParams conv;
  k::DepthwiseConvParams depthwise;
  k::PoolParams pool;
  k::AddParams add;
  k::BroadcastShape add_shape;
  k::OverlapRule rule;      // the kernel's own rule: safe, and tight
  k::OverlapRule declared;  // what the table declares (joined with portable's): safe
  int32_t in_bytes, out_bytes;
  bool on_mve;
};

void run_case(const OverlapCase& c, const int8_t* in, int8_t* out) {
  switch (c.kind) {
    case OverlapKind::kConv:
      k::conv2d(c.conv, in, filter_buf, bias_buf, out,
                k::Scratch{scratch_buf, k::built_conv_scratch_bytes(c.conv.shape)});
      break;
    case OverlapKind::kDepthwise: {
      const k::Scratch scratch{scratch_buf,
                               k::built_depthwise_conv_scratch_bytes(c.depthwise.shape)};
      if (c.depthwise.shape.input_c == 1 && c.depthwise.shape.output_c > 1) {
        k::depthwise_conv2d_one_input(c.depthwise, in, filter_buf, bias_buf, out, scratch);
      } else {
        k::depthwise_conv2d(c.depthwise, in, filter_buf, bias_buf, out, scratch);
      }
      break;
    }
    case OverlapKind::kAveragePool:
      k::average_pool(c.pool, in, out, k::Scratch{nullptr, 0});
      break;
    case OverlapKind::kMaxPool:
      k::max_pool(c.pool, in, out);
      break;
    case OverlapKind::kAdd:
      // Input 2 is the other half of input_buf (never in the arena).
      k::add(c.add, c.add_shape, in, input_buf + 4096, out);
      break;
  }
}

// Whether the case is right at `lead`: output lead bytes before the input in one arena.
bool right_at(const OverlapCase& c, int64_t lead) {
  const int64_t in_at = lead > 0 ? lead : 0;
  const int64_t out_at = in_at - lead;
  if (in_at + c.in_bytes > kOverlapArena || out_at + c.out_bytes > kOverlapArena) return false;
  memset(overlap_arena, 0x22, sizeof(overlap_arena));
  memcpy(overlap_arena + in_at, overlap_input, static_cast<size_t>(c.in_bytes));
  run_case(c, overlap_arena + in_at, overlap_arena + out_at);
  return first_difference(overlap_arena + out_at, overlap_want, c.out_bytes) < 0;
}

// Right at the lead and further; returns whether 16 bytes closer breaks it.
bool check_overlap_case(Tally& t, const OverlapCase& c, const char* what) {
  ++t.cases;
  if (c.on_mve) ++t.variant_cases;
  fill(overlap_input, c.in_bytes, -128, 127);
  run_case(c, overlap_input, overlap_want);
  bool ok = c.rule.allowed && c.on_mve && c.declared.allowed && c.declared.lead >= c.rule.lead;
  const int64_t extras[] = {0, 1, 16, 64};
  for (const int64_t extra : extras) {
    ok = ok && right_at(c, c.rule.lead + extra) && right_at(c, c.declared.lead + extra);
  }
  if (!ok) {
    if (t.failed++ < 6) {
      Line().text("    ").text(what).text(" overlap at lead ").signed_number(static_cast<int32_t>(c.rule.lead))
          .text(c.rule.allowed ? "" : " (not allowed)").text(c.on_mve ? "" : " (not mve)")
          .text(" is wrong").end();
    }
    return false;
  }
  const int64_t closer = c.rule.lead - 16;
  if (closer <= -static_cast<int64_t>(c.in_bytes)) return false;
  return !right_at(c, closer);
}

int32_t conv_out(int32_t in, int32_t k, int32_t stride, bool same, int32_t* pad) {
  const int32_t out = same ? (in + stride - 1) / stride : (in - k) / stride + 1;
  const int32_t total = (out - 1) * stride + k - in;
  *pad = same && total > 0 ? total / 2 : 0;
  return out;
}

int32_t shift_for(int32_t taps) {
  int32_t bits = 0;
  while ((1 << bits) < taps) ++bits;
  return -(bits + 6);
}

void fill_overlap_quant(int32_t co, int32_t taps) {
  for (int32_t i = 0; i < co; ++i) {
    mult_buf[i] = static_cast<int32_t>((1u << 30) + (next_u32() >> 2));
    shift_buf[i] = shift_for(taps);
    bias_buf[i] = uniform(-2000, 2000);
  }
}

struct Spec {
  int32_t h, w, ci, k_h, k_w, co, stride;  // co: conv output channels / depth multiplier
  bool same;
};

OverlapCase conv_overlap_case(const Spec& sp) {
  OverlapCase c{};
  c.kind = OverlapKind::kConv;
  k::ConvShape& s = c.conv.shape;
  s.batches = 1;
  s.input_h = sp.h;
  s.input_w = sp.w;
  s.input_c = s.filter_c = sp.ci;
  s.filter_h = sp.k_h;
  s.filter_w = sp.k_w;
  s.output_h = conv_out(sp.h, sp.k_h, sp.stride, sp.same, &s.pad_h);
  s.output_w = conv_out(sp.w, sp.k_w, sp.stride, sp.same, &s.pad_w);
  s.output_c = sp.co;
  s.stride_h = s.stride_w = sp.stride;
  s.dilation_h = s.dilation_w = 1;
  const int32_t taps = sp.k_h * sp.k_w * sp.ci;
  fill(filter_buf, taps * sp.co, -127, 127);
  fill_overlap_quant(sp.co, taps);
  c.conv.input_offset = 3;
  c.conv.output_offset = -2;
  c.conv.act_min = -128;
  c.conv.act_max = 127;
  c.conv.output_multiplier = mult_buf;
  c.conv.output_shift = shift_buf;
  c.rule = k::mve::conv_own_overlap(s);
  c.declared = k::built_conv_overlap(s);
  c.in_bytes = sp.h * sp.w * sp.ci;
  c.out_bytes = s.output_h * s.output_w * s.output_c;
  c.on_mve = strcmp(k::built_conv_kernel_variant(s), "mve") == 0;
  return c;
}

OverlapCase depthwise_overlap_case(const Spec& sp) {
  OverlapCase c{};
  c.kind = OverlapKind::kDepthwise;
  k::DepthwiseShape& s = c.depthwise.shape;
  s.batches = 1;
  s.input_h = sp.h;
  s.input_w = sp.w;
  s.input_c = sp.ci;
  s.filter_h = sp.k_h;
  s.filter_w = sp.k_w;
  s.output_h = conv_out(sp.h, sp.k_h, sp.stride, sp.same, &s.pad_h);
  s.output_w = conv_out(sp.w, sp.k_w, sp.stride, sp.same, &s.pad_w);
  s.output_c = sp.ci * sp.co;
  s.stride_h = s.stride_w = sp.stride;
  s.dilation_h = s.dilation_w = 1;
  fill(filter_buf, sp.k_h * sp.k_w * s.output_c, -127, 127);
  fill_overlap_quant(s.output_c, sp.k_h * sp.k_w);
  c.depthwise.input_offset = 5;
  c.depthwise.output_offset = 1;
  c.depthwise.act_min = -128;
  c.depthwise.act_max = 127;
  c.depthwise.output_multiplier = mult_buf;
  c.depthwise.output_shift = shift_buf;
  c.rule = k::mve::depthwise_conv_own_overlap(s);
  c.declared = k::built_depthwise_conv_overlap(s);
  c.in_bytes = sp.h * sp.w * sp.ci;
  c.out_bytes = s.output_h * s.output_w * s.output_c;
  c.on_mve = strcmp(k::built_depthwise_conv_kernel_variant(s), "mve") == 0;
  return c;
}

OverlapCase pool_overlap_case(const Spec& sp, bool average) {
  OverlapCase c{};
  c.kind = average ? OverlapKind::kAveragePool : OverlapKind::kMaxPool;
  c.pool = k::prepare_pool(1, sp.h, sp.w, sp.ci, sp.k_h, sp.k_w, sp.stride, sp.stride, sp.same,
                           -128, 127);
  c.rule = average ? k::built_average_pool_overlap(c.pool) : k::built_max_pool_overlap(c.pool);
  c.declared = c.rule;
  c.in_bytes = sp.h * sp.w * sp.ci;
  c.out_bytes = c.pool.output_h * c.pool.output_w * sp.ci;
  c.on_mve = strcmp(average ? k::built_average_pool_kernel_variant(c.pool)
                            : k::built_max_pool_kernel_variant(c.pool),
                    "mve") == 0;
  return c;
}

void check_overlap(Tally& t) {
  bool tight_pointwise = false, tight_im2col = false, tight_row3 = false, tight_general = false;
  bool tight_multiplier = false, tight_average = false, tight_max = false, tight_add = false;
  // 1x1: blocks of four pixels; depths above 16 (a filter row re-read per channel) and below.
  const Spec pointwise[] = {{5, 5, 32, 1, 1, 32, 1, false}, {6, 6, 8, 1, 1, 16, 1, false},
                            {6, 6, 48, 1, 1, 8, 1, false},  {7, 5, 20, 1, 1, 5, 1, false},
                            {8, 8, 16, 1, 1, 16, 2, false}, {3, 3, 16, 1, 1, 48, 1, false},
                            {5, 5, 64, 1, 1, 64, 1, false}};
  for (const Spec& sp : pointwise) tight_pointwise |= check_overlap_case(t, conv_overlap_case(sp), "conv 1x1");
  const Spec im2col[] = {{6, 6, 16, 3, 3, 16, 1, true},  {13, 6, 1, 10, 4, 48, 2, true},
                         {12, 12, 3, 3, 3, 8, 2, true},  {7, 7, 8, 3, 3, 16, 1, false},
                         {8, 8, 16, 3, 3, 32, 2, true},  {6, 6, 24, 3, 3, 24, 1, true}};
  for (const Spec& sp : im2col) tight_im2col |= check_overlap_case(t, conv_overlap_case(sp), "conv im2col");
  // Depthwise, multiplier 1: 3-wide filters in threes (strides 1 and 2), other widths in fours.
  const Spec row3[] = {{6, 5, 64, 3, 3, 1, 1, true}, {8, 8, 16, 3, 3, 1, 2, true},
                       {7, 7, 8, 3, 3, 1, 1, false}, {5, 5, 3, 3, 3, 1, 1, true},
                       {9, 10, 12, 3, 3, 1, 1, true}, {10, 10, 20, 3, 3, 1, 2, false}};
  for (const Spec& sp : row3) tight_row3 |= check_overlap_case(t, depthwise_overlap_case(sp), "depthwise 3-wide");
  const Spec general[] = {{9, 9, 4, 5, 5, 1, 2, true},  {9, 12, 16, 5, 5, 1, 1, true},
                          {8, 10, 12, 2, 2, 1, 1, false}, {7, 9, 20, 1, 4, 1, 1, true},
                          {10, 12, 8, 3, 5, 1, 1, true}, {6, 11, 24, 4, 4, 1, 1, false}};
  for (const Spec& sp : general) tight_general |= check_overlap_case(t, depthwise_overlap_case(sp), "depthwise");
  // Columns (run as rows by the whole-map kernel).
  const Spec columns[] = {{30, 1, 40, 3, 1, 1, 1, false}, {28, 1, 64, 5, 1, 1, 1, false},
                          {24, 1, 32, 10, 1, 1, 1, false}, {15, 1, 48, 15, 1, 1, 1, false},
                          {20, 1, 8, 3, 1, 1, 2, true}, {18, 1, 24, 5, 1, 1, 1, true}};
  for (const Spec& sp : columns) tight_general |= check_overlap_case(t, depthwise_overlap_case(sp), "depthwise column");
  const int32_t multipliers[] = {2, 3, 4, 5, 8};
  for (const int32_t m : multipliers) {
    tight_multiplier |= check_overlap_case(t, depthwise_overlap_case({6, 5, 3, 3, 3, m, 1, true}), "depthwise multiplier");
    tight_multiplier |= check_overlap_case(t, depthwise_overlap_case({7, 7, 2, 3, 3, m, 2, false}), "depthwise multiplier");
    // One input channel (dot products along rows, the filter rearranged in the scratch).
    tight_multiplier |= check_overlap_case(t, depthwise_overlap_case({9, 12, 1, 5, 8, m, 2, true}), "depthwise one input");
    tight_multiplier |= check_overlap_case(t, depthwise_overlap_case({8, 14, 1, 3, 10, m, 1, false}), "depthwise one input");
  }
  const Spec pools[] = {{8, 8, 16, 2, 2, 0, 2, false}, {7, 7, 8, 3, 3, 0, 1, true},
                        {5, 5, 64, 5, 5, 0, 1, false}, {9, 9, 12, 3, 3, 0, 2, true},
                        {6, 6, 40, 3, 3, 0, 1, true},  {8, 8, 24, 2, 2, 0, 1, false}};
  for (const Spec& sp : pools) {
    tight_average |= check_overlap_case(t, pool_overlap_case(sp, true), "average pool");
    tight_max |= check_overlap_case(t, pool_overlap_case(sp, false), "max pool");
  }
  // Random shapes.
  for (int32_t trial = 0; trial < 40; ++trial) {
    const int32_t h = uniform(2, 9), w = uniform(2, 9), ci = uniform(1, 40);
    const int32_t kk = uniform(1, 3) * 2 - 1, stride = uniform(1, 2);
    const bool same = coin(50);
    if (!same && (kk > h || kk > w)) continue;
    tight_pointwise |= check_overlap_case(t, conv_overlap_case({h, w, ci, 1, 1, uniform(1, 40), stride, false}), "conv 1x1");
    if (kk > 1) tight_im2col |= check_overlap_case(t, conv_overlap_case({h, w, ci, kk, kk, uniform(1, 40), stride, same}), "conv im2col");
    const bool three = kk == 3;
    const bool d = check_overlap_case(t, depthwise_overlap_case({h, w, ci, kk, kk, 1, stride, same}), "depthwise");
    if (three) {
      tight_row3 |= d;
    } else {
      tight_general |= d;
    }
    const bool average = coin(50);
    const bool pool = check_overlap_case(t, pool_overlap_case({h, w, ci, kk, kk, 0, stride, same}, average), "pool");
    if (average) {
      tight_average |= pool;
    } else {
      tight_max |= pool;
    }
  }
  // ADD (four elements at a time): either input; a broadcast input none.
  for (int32_t trial = 0; trial < 6; ++trial) {
    OverlapCase c{};
    c.kind = OverlapKind::kAdd;
    const int32_t n = uniform(20, 4000);
    c.add_shape = k::elementwise_shape(n);
    c.add = k::prepare_add(0.05f, 3, 0.04f, -1, 0.08f, 2, -128, 127);
    c.rule = c.declared = k::built_add_overlap(c.add_shape, 0);
    c.in_bytes = c.out_bytes = n;
    c.on_mve = strcmp(k::built_add_kernel_variant(c.add_shape), "mve") == 0;
    fill(input_buf + 4096, n, -128, 127);
    tight_add |= check_overlap_case(t, c, "add");
  }
  k::BroadcastShape broadcast = k::elementwise_shape(16);
  broadcast.input2[0] = 1;
  const bool add_broadcast_ok = k::built_add_overlap(broadcast, 0).allowed &&
                                !k::built_add_overlap(broadcast, 1).allowed;
  const bool tight[] = {tight_pointwise, tight_im2col, tight_row3,   tight_general,
                        tight_multiplier, tight_average, tight_max, tight_add, add_broadcast_ok};
  const char* names[] = {"conv 1x1", "conv im2col", "depthwise 3-wide", "depthwise",
                         "depthwise multiplier", "average pool", "max pool", "add",
                         "add broadcast"};
  for (int32_t i = 0; i < 9; ++i) {
    if (!tight[i]) {
      ++t.failed;
      Line().text("    ").text(names[i]).text(": no case breaks 16 bytes closer").end();
    }
  }
}

}  // namespace

int main() {
  Line().text("mve kernels against portable").end();
  Tally requantize{"requantize"}, conv{"conv"}, depthwise{"depthwise"}, fc{"fully connected"};
  Tally add{"add"}, mul{"mul"}, pool{"average and max pool"}, overlap{"overlap rules"};
  Tally conv_rows{"conv rows"}, depthwise_rows{"depthwise rows"};
  Tally global_pool_rows{"global pool rows"};
  check_requantize(requantize);
  check_conv(conv);
  check_depthwise(depthwise);
  check_conv_rows(conv_rows);
  check_depthwise_rows(depthwise_rows);
  check_global_pool_rows(global_pool_rows);
  check_fully_connected(fc);
  check_add(add);
  check_mul(mul);
  check_pooling(pool);
  check_overlap(overlap);
  int32_t failed = 0;
  const Tally* tallies[] = {&requantize, &conv, &depthwise, &conv_rows, &depthwise_rows,
                            &global_pool_rows, &fc, &add, &mul, &pool, &overlap};
  for (const Tally* t : tallies) {
    t->report();
    // Every kernel must have run on mve for most cases (the tables may keep a few portable).
    if (t->failed != 0 || t->variant_cases * 2 < t->cases) ++failed;
  }
  Line().text(failed == 0 ? "mve kernels: ok" : "mve kernels: FAILED").end();
  return failed == 0 ? 0 : 1;
}
