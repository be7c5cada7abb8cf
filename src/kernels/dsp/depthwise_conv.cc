// dsp DEPTHWISE_CONV_2D. Depth multiplier 1: a pixel's channels are contiguous in the input, the
// filter and the output, so four channels are one word: SXTAB16 widens input bytes 0/2 and 1/3
// with the zero point added, SXTB16 the weights, and SMLABB/SMLATT add each lane's product to
// that channel's sum (the pairs belong to different channels, so SMLAD cannot be used). The sums
// of four channels stay in registers across the window's taps. Channels past the last multiple
// of four go one at a time. Depth multiplier M > 1: the M outputs of one input channel are
// contiguous in the filter and the output, so four of them are one weight word against one
// input value, in both halves of a word. One input channel with a multiplier
// (depthwise_conv2d_one_input, a function of its own): a window row is contiguous input bytes,
// so SMLAD takes two taps of one output channel against the filter rearranged into the scratch;
// the other kernels use no scratch.

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dsp/intrinsics.h"
#include "dsp/kernels.h"
#include "dsp/requantize.h"
#include "portable/row_window.h"
#include "portable/window.h"

namespace mote {
namespace kernels {
namespace dsp {
namespace {

using internal::bias_or_zero;

// The input rows of a window. Whole-tensor calls step a constant stride from the first row
// (StridedRows); row calls look them up in a table, since a ring's window may wrap past its last
// slot (TableRows). Both give the same loops; the strided one compiles as before the row calls.
struct StridedRows {
  const int8_t* x;  // input of the first in-bounds tap, channel 0
  ptrdiff_t x_row;  // bytes between the window's rows
  struct Cursor {
    const int8_t* p;
    ptrdiff_t step;
    const int8_t* get() const { return p; }
    void next() { p += step; }
  };
  Cursor from(int32_t c) const { return Cursor{x + c, x_row}; }
  // The byte distances from row 0 to row 1 and from row 1 to row 2.
  ptrdiff_t delta1() const { return x_row; }
  ptrdiff_t delta2() const { return x_row; }
};

struct TableRows {
  const int8_t* const* rows;  // the window's first in-bounds row, then the others
  ptrdiff_t x;                // bytes from a row's start to the first in-bounds tap
  struct Cursor {
    const int8_t* const* t;
    ptrdiff_t off;
    const int8_t* get() const { return *t + off; }
    void next() { ++t; }
  };
  Cursor from(int32_t c) const { return Cursor{rows, x + c}; }
  ptrdiff_t delta1() const { return rows[1] - rows[0]; }
  ptrdiff_t delta2() const { return rows[2] - rows[1]; }
};

template <typename Rows>
struct Window {
  Rows in;
  const int8_t* w;  // the filter taps of the first in-bounds tap, channel 0
  int32_t rows, taps;
  ptrdiff_t x_tap;  // input stride between taps of the window
  ptrdiff_t w_row, w_tap;
};

// One tap of four channels: the inputs (zero point added) and weights widened into bytes 0/2 and
// 1/3, each channel's product into its accumulator.
inline void tap(uint32_t xv, uint32_t wv, uint32_t offset2, int32_t& a0, int32_t& a1, int32_t& a2,
                int32_t& a3) {
  const uint32_t xe = sxtab16(offset2, xv), xo = sxtab16_ror8(offset2, xv);
  const uint32_t we = sxtb16(wv), wo = sxtb16_ror8(wv);
  a0 = smlabb(xe, we, a0);
  a2 = smlatt(xe, we, a2);
  a1 = smlabb(xo, wo, a1);
  a3 = smlatt(xo, wo, a3);
}

// Channels [c, c + 4) of one output pixel over its window.
template <typename Rows>
inline void four_channels(const Window<Rows>& win, int32_t c, uint32_t offset2, int32_t* a) {
  int32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
  typename Rows::Cursor xr = win.in.from(c);
  const int8_t* wr = win.w + c;
  for (int32_t r = 0; r < win.rows; ++r, xr.next(), wr += win.w_row) {
    const int8_t* x = xr.get();
    const int8_t* w = wr;
    for (int32_t t = 0; t < win.taps; ++t, x += win.x_tap, w += win.w_tap) {
      tap(load4(x), load4(w), offset2, a0, a1, a2, a3);
    }
  }
  store_sums(a, a0, a1, a2, a3);
}

#if defined(__ARM_FEATURE_DSP)
// One depthwise tap in assembly, for four_channels_3x3 and four_channels_3x3_border: input word
// widened with the zero point (t2 bytes 0/2, t0 bytes 1/3), weight word widened (t3, t1), each
// channel's 16x16 product into its accumulator.
#define MOTE_DSP_DW_TAP(addr_x, addr_w)             \
  "ldr     %[t0], " addr_x "\n\t"                    \
  "ldr     %[t1], " addr_w "\n\t"                    \
  "sxtab16 %[t2], %[off], %[t0]\n\t"                 \
  "sxtab16 %[t0], %[off], %[t0], ror #8\n\t"         \
  "sxtb16  %[t3], %[t1]\n\t"                         \
  "sxtb16  %[t1], %[t1], ror #8\n\t"                 \
  "smlabb  %[a0], %[t2], %[t3], %[a0]\n\t"           \
  "smlatt  %[a2], %[t2], %[t3], %[a2]\n\t"           \
  "smlabb  %[a1], %[t0], %[t1], %[a1]\n\t"           \
  "smlatt  %[a3], %[t0], %[t1], %[a3]\n\t"
#endif

// The same with the 3x3 window whole (the common interior pixel), its taps unrolled. On Arm,
// without dilation (input taps as far apart as filter taps), in inline assembly: gcc 12 keeps the
// eighteen tap addresses live across the channel loop and spills them (about 170 instructions per
// four channels; the assembly takes 96). Rows 1 and 2 are d1 and d1 + d2 bytes after row 0; with
// `two_deltas` false d2 must equal d1 (equally spaced rows: a whole map, a ring window that does
// not wrap), with it true d2 comes from memory (the fourteen registers are taken), one instruction
// more per four channels.
template <bool two_deltas>
inline void four_channels_3x3(const int8_t* x, const int8_t* w, ptrdiff_t d1, ptrdiff_t d2,
                              ptrdiff_t x_tap, ptrdiff_t w_tap, uint32_t offset2, int32_t* a) {
  int32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
#if defined(__ARM_FEATURE_DSP)
  if (x_tap == w_tap) {
    const ptrdiff_t tap1 = w_tap, tap2 = 2 * w_tap;
    uint32_t t0, t1, t2, t3;
#define MOTE_DSP_DW_ROW                             \
  MOTE_DSP_DW_TAP("[%[x]]", "[%[w]]")                \
  MOTE_DSP_DW_TAP("[%[x], %[tap1]]", "[%[w], %[tap1]]") \
  MOTE_DSP_DW_TAP("[%[x], %[tap2]]", "[%[w], %[tap2]]")
#define MOTE_DSP_DW_NEXT_W                          \
  "add     %[w], %[w], %[tap2]\n\t"                  \
  "add     %[w], %[w], %[tap1]\n\t"
    if (two_deltas) {
      __asm__ volatile(MOTE_DSP_DW_ROW
                       "add     %[x], %[x], %[xrow]\n\t" MOTE_DSP_DW_NEXT_W
                       MOTE_DSP_DW_ROW
                       "ldr     %[t0], %[xrow2]\n\t"
                       "add     %[x], %[x], %[t0]\n\t" MOTE_DSP_DW_NEXT_W
                       MOTE_DSP_DW_ROW
                       : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x),
                         [w] "+r"(w), [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2),
                         [t3] "=&r"(t3)
                       : [tap1] "r"(tap1), [tap2] "r"(tap2), [xrow] "r"(d1), [xrow2] "m"(d2),
                         [off] "r"(offset2)
                       : "memory");
    } else {
      __asm__ volatile(MOTE_DSP_DW_ROW
                       "add     %[x], %[x], %[xrow]\n\t" MOTE_DSP_DW_NEXT_W
                       MOTE_DSP_DW_ROW
                       "add     %[x], %[x], %[xrow]\n\t" MOTE_DSP_DW_NEXT_W
                       MOTE_DSP_DW_ROW
                       : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x),
                         [w] "+r"(w), [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2),
                         [t3] "=&r"(t3)
                       : [tap1] "r"(tap1), [tap2] "r"(tap2), [xrow] "r"(d1), [off] "r"(offset2)
                       : "memory");
    }
#undef MOTE_DSP_DW_NEXT_W
#undef MOTE_DSP_DW_ROW
    store_sums(a, a0, a1, a2, a3);
    return;
  }
#endif
  const int8_t* const xs[3] = {x, x + d1, x + d1 + (two_deltas ? d2 : d1)};
#pragma GCC unroll 3
  for (int32_t r = 0; r < 3; ++r, w += 3 * w_tap) {
#pragma GCC unroll 3
    for (int32_t t = 0; t < 3; ++t) {
      tap(load4(xs[r] + t * x_tap), load4(w + t * w_tap), offset2, a0, a1, a2, a3);
    }
  }
  store_sums(a, a0, a1, a2, a3);
}

// The same for a 3x3 window clipped by the padding on one side (a border pixel but a corner): 3
// rows of 2 taps or 2 rows of 3 (`rows`); input taps as far apart as filter taps (w_tap). Rows 1
// and 2 are d1 and d1 + d2 bytes after row 0. The generic loop spends about 16 instructions a
// tap and 13 a row; this takes 10 a tap. On the host, the generic loop. (Out of line: inlined
// into a loop, gcc 12 found no fourteen registers for the assembly.)
#if defined(__ARM_FEATURE_DSP)
__attribute__((noinline)) void four_channels_3x3_border(const int8_t* x, const int8_t* w,
                                                        ptrdiff_t d1, ptrdiff_t d2,
                                                        ptrdiff_t w_tap, int32_t rows,
                                                        uint32_t offset2, int32_t* a) {
  int32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
  const ptrdiff_t tap1 = w_tap, tap2 = 2 * w_tap;
  uint32_t t0, t1, t2, t3;
#define MOTE_DSP_DW_ROW2                            \
  MOTE_DSP_DW_TAP("[%[x]]", "[%[w]]")                \
  MOTE_DSP_DW_TAP("[%[x], %[tap1]]", "[%[w], %[tap1]]")
#define MOTE_DSP_DW_ROW3                            \
  MOTE_DSP_DW_ROW2                                  \
  MOTE_DSP_DW_TAP("[%[x], %[tap2]]", "[%[w], %[tap2]]")
  // The next filter row: three taps on.
#define MOTE_DSP_DW_NEXT_W                          \
  "add     %[w], %[w], %[tap2]\n\t"                  \
  "add     %[w], %[w], %[tap1]\n\t"
#define MOTE_DSP_DW_OUTPUTS                                                                \
  : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x), [w] "+r"(w), \
    [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3)
  if (rows == 3) {
    // (The third row's step from memory: fourteen registers are taken.)
    __asm__ volatile(MOTE_DSP_DW_ROW2
                     "add     %[x], %[x], %[xrow]\n\t" MOTE_DSP_DW_NEXT_W
                     MOTE_DSP_DW_ROW2
                     "ldr     %[t0], %[xrow2]\n\t"
                     "add     %[x], %[x], %[t0]\n\t" MOTE_DSP_DW_NEXT_W
                     MOTE_DSP_DW_ROW2
                     MOTE_DSP_DW_OUTPUTS
                     : [tap1] "r"(tap1), [tap2] "r"(tap2), [xrow] "r"(d1), [xrow2] "m"(d2),
                       [off] "r"(offset2)
                     : "memory");
  } else {
    __asm__ volatile(MOTE_DSP_DW_ROW3
                     "add     %[x], %[x], %[xrow]\n\t" MOTE_DSP_DW_NEXT_W
                     MOTE_DSP_DW_ROW3
                     MOTE_DSP_DW_OUTPUTS
                     : [tap1] "r"(tap1), [tap2] "r"(tap2), [xrow] "r"(d1), [off] "r"(offset2)
                     : "memory");
  }
#undef MOTE_DSP_DW_OUTPUTS
#undef MOTE_DSP_DW_NEXT_W
#undef MOTE_DSP_DW_ROW3
#undef MOTE_DSP_DW_ROW2
#undef MOTE_DSP_DW_TAP
  store_sums(a, a0, a1, a2, a3);
}

// Channels [0, c4) of a border pixel in blocks of four (see four_channels_3x3_border), x and w
// its first in-bounds tap of channel 0. Out of line, one copy for the whole-map and row kernels:
// beside their channel loops it took registers those loops then lacked (and border pixels are
// the fewer); one requantization in the code, not four (flash).
__attribute__((noinline)) void border_channels_3x3(const int8_t* x, const int8_t* w, ptrdiff_t d1,
                                                   ptrdiff_t d2, ptrdiff_t w_tap, int32_t rows,
                                                   uint32_t offset2, int32_t c4,
                                                   const int32_t* bias, const Requantizer& rq,
                                                   int8_t* out) {
  for (int32_t c = 0; c < c4; c += 4) {
    int32_t a[4] = {bias_or_zero(bias, c), bias_or_zero(bias, c + 1), bias_or_zero(bias, c + 2),
                    bias_or_zero(bias, c + 3)};
    four_channels_3x3_border(x + c, w + c, d1, d2, w_tap, rows, offset2, a);
#pragma GCC unroll 1
    for (int32_t i = 0; i < 4; ++i) out[c + i] = rq(a[i], c + i);
  }
}
#endif

// Outputs [o, o + 4) of input channel c (depth multiplier > 1): the window's input value of that
// channel (zero point added) in both halves of a word, against four consecutive weights.
template <typename Rows>
inline void four_outputs_of_channel(const Window<Rows>& win, int32_t c, int32_t o, int16_t offset,
                                    int32_t* a) {
  int32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
  typename Rows::Cursor xr = win.in.from(c);
  const int8_t* wr = win.w + o;
  for (int32_t r = 0; r < win.rows; ++r, xr.next(), wr += win.w_row) {
    const int8_t* x = xr.get();
    const int8_t* w = wr;
    for (int32_t t = 0; t < win.taps; ++t, x += win.x_tap, w += win.w_tap) {
      const int32_t xv = *x + offset;
      const uint32_t xx = pack16(xv, xv);
      const uint32_t wv = load4(w);
      const uint32_t we = sxtb16(wv), wo = sxtb16_ror8(wv);
      a0 = smlabb(xx, we, a0);
      a2 = smlatt(xx, we, a2);
      a1 = smlabb(xx, wo, a1);
      a3 = smlatt(xx, wo, a3);
    }
  }
  store_sums(a, a0, a1, a2, a3);
}

// Output o (filter column o) from input channel c over the window.
template <typename Rows>
inline int32_t one_output(const Window<Rows>& win, int32_t c, int32_t o, int16_t offset,
                          int32_t acc) {
  typename Rows::Cursor xr = win.in.from(c);
  const int8_t* wr = win.w + o;
  for (int32_t r = 0; r < win.rows; ++r, xr.next(), wr += win.w_row) {
    const int8_t* x = xr.get();
    for (int32_t t = 0; t < win.taps; ++t) acc += (x[t * win.x_tap] + offset) * wr[t * win.w_tap];
  }
  return acc;
}

// Every output channel of one pixel with depth multiplier m > 1.
template <typename Rows>
inline void depth_multiplied_pixel(const Window<Rows>& win, int32_t input_c, int32_t m,
                                   int16_t offset, const int32_t* bias, const Requantizer& rq,
                                   int8_t* out) {
  const int32_t m4 = m & ~3;
  for (int32_t c = 0; c < input_c; ++c) {
    const int32_t first = c * m;
    int32_t j = 0;
    for (; j < m4; j += 4) {
      const int32_t o = first + j;
      int32_t a[4] = {bias_or_zero(bias, o), bias_or_zero(bias, o + 1), bias_or_zero(bias, o + 2),
                      bias_or_zero(bias, o + 3)};
      four_outputs_of_channel(win, c, o, offset, a);
      out[o] = rq(a[0], o);
      out[o + 1] = rq(a[1], o + 1);
      out[o + 2] = rq(a[2], o + 2);
      out[o + 3] = rq(a[3], o + 3);
    }
    for (; j < m; ++j) {
      const int32_t o = first + j;
      out[o] = rq(one_output(win, c, o, offset, bias_or_zero(bias, o)), o);
    }
  }
}

template <typename Rows>
inline int32_t one_channel(const Window<Rows>& win, int32_t c, int16_t offset, int32_t acc) {
  typename Rows::Cursor xr = win.in.from(c);
  const int8_t* wr = win.w + c;
  for (int32_t r = 0; r < win.rows; ++r, xr.next(), wr += win.w_row) {
    const int8_t* x = xr.get();
    for (int32_t t = 0; t < win.taps; ++t) acc += (x[t * win.x_tap] + offset) * wr[t * win.w_tap];
  }
  return acc;
}

// The same over a whole 3x3 window (the channels past the last multiple of four of an interior
// pixel), its nine taps unrolled: the loop above spends twice the instructions on its counters
// and pointers. Rows 1 and 2 are d1 and d1 + d2 bytes after row 0. (Out of line: inlined, it
// cost the four-channel loops of the row calls registers, though most layers never run it.)
__attribute__((noinline)) int32_t one_channel_3x3(const int8_t* x, const int8_t* w, ptrdiff_t d1,
                                                  ptrdiff_t d2, ptrdiff_t x_tap, ptrdiff_t w_tap,
                                                  int16_t offset, int32_t acc) {
  const int8_t* const xs[3] = {x, x + d1, x + d1 + d2};
#pragma GCC unroll 3
  for (int32_t r = 0; r < 3; ++r, w += 3 * w_tap) {
#pragma GCC unroll 3
    for (int32_t t = 0; t < 3; ++t) acc += (xs[r][t * x_tap] + offset) * w[t * w_tap];
  }
  return acc;
}

// All output channels of one pixel whose window `win` gives (the whole-tensor and row loops).
// `two_deltas`: a whole 3x3 window's rows may be unequally spaced (a ring window that wraps).
template <bool two_deltas, typename Rows>
inline __attribute__((always_inline)) void pixel(const Window<Rows>& win, bool is3x3, int32_t c_all, int32_t m, int16_t offset,
                  uint32_t offset2, const int32_t* bias, const Requantizer& rq, int8_t* out) {
  if (m > 1) {
    depth_multiplied_pixel(win, c_all, m, offset, bias, rq, out);
    return;
  }
  const int32_t c4 = c_all & ~3;
  const bool whole3x3 = is3x3 && win.rows == 3 && win.taps == 3;
  int32_t c = 0;
#if defined(__ARM_FEATURE_DSP)
  // Three rows of two taps or two rows of three, undilated in x (a border pixel's clipped window
  // but a corner's).
  if (is3x3 && win.rows + win.taps == 5 && win.rows >= 2 && win.x_tap == win.w_tap) {
    border_channels_3x3(win.in.from(0).get(), win.w, win.in.delta1(),
                        win.rows == 3 ? win.in.delta2() : 0, win.w_tap, win.rows, offset2, c4,
                        bias, rq, out);
    c = c4;
  }
#endif
  for (; c < c4; c += 4) {
    int32_t a[4] = {bias_or_zero(bias, c), bias_or_zero(bias, c + 1), bias_or_zero(bias, c + 2),
                    bias_or_zero(bias, c + 3)};
    if (whole3x3) {
      four_channels_3x3<two_deltas>(win.in.from(c).get(), win.w + c, win.in.delta1(),
                                    win.in.delta2(), win.x_tap, win.w_tap, offset2, a);
    } else {
      four_channels(win, c, offset2, a);
    }
    out[c] = rq(a[0], c);
    out[c + 1] = rq(a[1], c + 1);
    out[c + 2] = rq(a[2], c + 2);
    out[c + 3] = rq(a[3], c + 3);
  }
  for (; c < c_all; ++c) {
    const int32_t acc =
        whole3x3 ? one_channel_3x3(win.in.from(c).get(), win.w + c, win.in.delta1(),
                                   two_deltas ? win.in.delta2() : win.in.delta1(), win.x_tap,
                                   win.w_tap, offset, bias_or_zero(bias, c))
                 : one_channel(win, c, offset, bias_or_zero(bias, c));
    out[c] = rq(acc, c);
  }
}

// One input channel, depth multiplier output_c (depthwise_single_input): output channel k of a
// pixel is the dot product of its window with filter channel k. SingleInput::taps holds the filter
// widened and in the order the loop reads it: for each block of four channels, each filter row,
// each group of four columns, each channel's weights as the halfword pairs (w0, w2) and (w1, w3)
// that SMLAD takes against SXTAB16's pairs of input bytes (zero past the filter's width or
// channels).
struct SingleInput {
  const uint32_t* taps;  // null: the layer runs the general path
  int32_t filter_h, filter_w, groups;  // groups: of four columns per filter row
  int32_t output_c, input_w;
  uint32_t offset2;    // the input offset in both halves
  int8_t zero_point;   // -offset: a padding byte that adds nothing
};

SingleInput single_input(const DepthwiseConvParams& params, const int8_t* filter,
                         Scratch scratch) {
  const DepthwiseShape& s = params.shape;
  SingleInput si{nullptr, s.filter_h, s.filter_w, (s.filter_w + 3) / 4, s.output_c, s.input_w,
                 pack16(static_cast<int16_t>(params.input_offset),
                        static_cast<int16_t>(params.input_offset)),
                 static_cast<int8_t>(-params.input_offset)};
  const size_t bytes = depthwise_conv_scratch_bytes(s);
  // (Plans align every buffer to 16 bytes; a scratch that is not word-aligned runs the general
  // path.)
  if (bytes == 0 || scratch.data == nullptr || scratch.size < bytes ||
      reinterpret_cast<uintptr_t>(scratch.data) % 4 != 0 || params.input_offset < -127 ||
      params.input_offset > 128) {
    return si;
  }
  uint32_t* dst = reinterpret_cast<uint32_t*>(scratch.data);
  for (int32_t oc = 0; oc < s.output_c; oc += 4) {
    for (int32_t ky = 0; ky < s.filter_h; ++ky) {
      const int8_t* row = filter + static_cast<ptrdiff_t>(ky) * s.filter_w * s.output_c;
      for (int32_t g = 0; g < si.groups; ++g) {
        for (int32_t k = oc; k < oc + 4; ++k, dst += 2) {
          int16_t w[4] = {};
#pragma GCC unroll 1
          for (int32_t t = 0; t < 4; ++t) {
            const int32_t column = 4 * g + t;
            if (k < s.output_c && column < s.filter_w) {
              w[t] = row[static_cast<ptrdiff_t>(column) * s.output_c + k];
            }
          }
          dst[0] = pack16(w[0], w[2]);
          dst[1] = pack16(w[1], w[3]);
        }
      }
    }
  }
  si.taps = reinterpret_cast<const uint32_t*>(scratch.data);
  return si;
}

// The sums of four output channels over `rows` window rows, row r's first tap at x[r], the
// block's weights from wt: per group of four taps, SXTAB16 adds the offset to input bytes 0/2 and
// 1/3, and each channel takes two SMLADs against its weight pairs.
inline void single_input_sums(const int8_t* const* x, int32_t rows, int32_t groups,
                              const uint32_t* wt, uint32_t offset2, int32_t* a) {
  int32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
  for (int32_t r = 0; r < rows; ++r) {
    const int8_t* p = x[r];
    for (int32_t g = 0; g < groups; ++g, p += 4, wt += 8) {
      const uint32_t xv = load4(p);
      const uint32_t xe = sxtab16(offset2, xv), xo = sxtab16_ror8(offset2, xv);
      a0 = smlad(xo, wt[1], smlad(xe, wt[0], a0));
      a1 = smlad(xo, wt[3], smlad(xe, wt[2], a1));
      a2 = smlad(xo, wt[5], smlad(xe, wt[4], a2));
      a3 = smlad(xo, wt[7], smlad(xe, wt[6], a3));
    }
  }
  store_sums(a, a0, a1, a2, a3);
}

// Every output channel of one pixel of a single-input layer. rows[ky]: the input row of filter row
// ky (set for ky in [pw.ky_begin, pw.ky_end)). A window whose taps all lie inside the input, and
// whose last group of four too (its taps past the filter's width have zero weights), is read where
// it is; any other is first copied into a buffer whose bytes outside the input are the zero point
// (so that no group reads past a row).
inline void single_input_pixel(const SingleInput& si, const int8_t* const* rows,
                               const internal::PixelWindow& pw, const int32_t* bias,
                               const Requantizer& rq, int8_t* out) {
  const int32_t rows_in = pw.ky_end > pw.ky_begin ? pw.ky_end - pw.ky_begin : 0;
  const int32_t width = 4 * si.groups;
  const int8_t* x[kMaxRowWindowRows];
  int8_t buffer[kMaxSingleInputWindow];
  if (pw.kx_begin == 0 && pw.kx_end == si.filter_w && pw.ix0 + width <= si.input_w) {
    for (int32_t r = 0; r < rows_in; ++r) x[r] = rows[pw.ky_begin + r] + pw.ix0;
  } else {
    const int32_t taps = pw.kx_end > pw.kx_begin ? pw.kx_end - pw.kx_begin : 0;
    for (int32_t r = 0; r < rows_in; ++r) {
      int8_t* row = buffer + r * width;
      memset(row, si.zero_point, static_cast<size_t>(width));
      if (taps > 0) {
        memcpy(row + pw.kx_begin, rows[pw.ky_begin + r] + pw.ix0 + pw.kx_begin,
               static_cast<size_t>(taps));
      }
      x[r] = row;
    }
  }
  // Words per block of four channels, and per filter row of a block.
  const ptrdiff_t row_words = static_cast<ptrdiff_t>(si.groups) * 8;
  const ptrdiff_t block = si.filter_h * row_words;
  const uint32_t* wt = si.taps + pw.ky_begin * row_words;
  for (int32_t oc = 0; oc < si.output_c; oc += 4, wt += block) {
    // The last block's missing channels have zero weights and are not stored.
    const int32_t n = si.output_c - oc < 4 ? si.output_c - oc : 4;
    int32_t a[4];
    for (int32_t i = 0; i < 4; ++i) a[i] = i < n ? bias_or_zero(bias, oc + i) : 0;
    single_input_sums(x, rows_in, si.groups, wt, si.offset2, a);
    // One requantization in the code, not four (flash; a few instructions per output).
#pragma GCC unroll 1
    for (int32_t i = 0; i < n; ++i) out[oc + i] = rq(a[i], oc + i);
  }
}

// The whole-map kernel of `params` on `shape` (params.shape, or a column's row).
__attribute__((noinline)) bool whole_map(const DepthwiseConvParams& params,
                                         const DepthwiseShape& shape, const int8_t* input,
                                         const int8_t* filter, const int32_t* bias,
                                         int8_t* output) {
  const DepthwiseShape s = shape;  // a local copy: output stores (int8) could alias it
  if (!depthwise_conv_handles(s) || s.stride_h <= 0 || s.stride_w <= 0 || s.dilation_h <= 0 ||
      s.dilation_w <= 0 || s.input_c <= 0 ||
      !multipliers_non_negative(params.output_multiplier, s.output_c)) {
    return false;
  }
  const Requantizer rq = make_requantizer(params.output_multiplier, params.output_shift,
                                          params.output_offset, params.act_min, params.act_max);
  const int16_t offset = static_cast<int16_t>(params.input_offset);
  const uint32_t offset2 = pack16(offset, offset);
  const int32_t c_all = s.input_c;
  const int32_t m = s.output_c / s.input_c;  // depth multiplier
  const bool is3x3 = s.filter_h == 3 && s.filter_w == 3;
  Window<StridedRows> win{};
  win.in.x_row = static_cast<ptrdiff_t>(s.dilation_h) * s.input_w * c_all;
  win.x_tap = static_cast<ptrdiff_t>(s.dilation_w) * c_all;
  win.w_row = static_cast<ptrdiff_t>(s.filter_w) * s.output_c;
  win.w_tap = s.output_c;
  internal::PixelWindow pw;
  int8_t* out = output;
  for (int32_t b = 0; b < s.batches; ++b) {
    for (int32_t y = 0; y < s.output_h; ++y) {
      internal::window_rows(s, y, pw);
      for (int32_t x = 0; x < s.output_w; ++x, out += s.output_c) {
        internal::window_columns(s, x, pw);
        win.rows = pw.ky_end > pw.ky_begin ? pw.ky_end - pw.ky_begin : 0;
        win.taps = pw.kx_end > pw.kx_begin ? pw.kx_end - pw.kx_begin : 0;
        if (win.rows == 0 || win.taps == 0) win.rows = win.taps = 0;  // all padding: bias only
        const int32_t iy = pw.iy0 + pw.ky_begin * s.dilation_h;
        const int32_t ix = pw.ix0 + pw.kx_begin * s.dilation_w;
        win.in.x = win.rows == 0 ? input
                                 : input + ((static_cast<ptrdiff_t>(b) * s.input_h + iy) * s.input_w +
                                            ix) * c_all;
        win.w = filter + static_cast<ptrdiff_t>(pw.ky_begin * s.filter_w + pw.kx_begin) * s.output_c;
        pixel<false>(win, is3x3, c_all, m, offset, offset2, bias, rq, out);
      }
    }
  }
  return true;
}

}  // namespace

bool depthwise_conv2d_one_input(const DepthwiseConvParams& params, const int8_t* input,
                                const int8_t* filter, const int32_t* bias, int8_t* output,
                                Scratch scratch) {
  const DepthwiseShape s = params.shape;  // a local copy: output stores (int8) could alias params
  if (!depthwise_conv_handles(s) || s.stride_h <= 0 || s.stride_w <= 0 || s.dilation_h <= 0 ||
      !multipliers_non_negative(params.output_multiplier, s.output_c)) {
    return false;
  }
  const SingleInput si = single_input(params, filter, scratch);
  if (si.taps == nullptr) return false;
  const Requantizer rq = make_requantizer(params.output_multiplier, params.output_shift,
                                          params.output_offset, params.act_min, params.act_max);
  const int8_t* rows[kMaxRowWindowRows];
  internal::PixelWindow pw;
  int8_t* out = output;
  for (int32_t b = 0; b < s.batches; ++b) {
    for (int32_t y = 0; y < s.output_h; ++y) {
      internal::window_rows(s, y, pw);
      for (int32_t ky = pw.ky_begin; ky < pw.ky_end; ++ky) {
        rows[ky] = input + (static_cast<ptrdiff_t>(b) * s.input_h + pw.iy0 + ky * s.dilation_h) *
                               s.input_w;
      }
      for (int32_t x = 0; x < s.output_w; ++x, out += s.output_c) {
        internal::window_columns(s, x, pw);
        single_input_pixel(si, rows, pw, bias, rq, out);
      }
    }
  }
  return true;
}

void depthwise_conv2d(const DepthwiseConvParams& params, const int8_t* input, const int8_t* filter,
                      const int32_t* bias, int8_t* output, Scratch scratch) {
  if (!depthwise_conv2d_no_fallback(params, input, filter, bias, output, scratch)) {
    portable_depthwise_conv2d(params, input, filter, bias, output, scratch);
  }
}

bool depthwise_conv2d_no_fallback(const DepthwiseConvParams& params, const int8_t* input,
                                  const int8_t* filter, const int32_t* bias, int8_t* output,
                                  Scratch) {
  return whole_map(params, internal::depthwise_column_as_row(params.shape), input, filter, bias,
                   output);
}


// Row calls (mote/kernels/rows.h): the same pixels, each output row's window rows looked up in a
// table (internal::RowTable: one modulo per filter row per output row), so that a window wrapping
// past the ring's last slot runs the dsp code too. Whole 3x3 windows whose rows are equally spaced
// (all but the wrapping ones) take the assembly with one row step, the others its two-step form.
void depthwise_conv2d_rows(const DepthwiseConvParams& params, const int8_t* input,
                           RowRing input_ring, const int8_t* filter, const int32_t* bias,
                           int8_t* output, RowRing output_ring, int32_t y_begin, int32_t y_end,
                           Scratch scratch) {
  if (!depthwise_conv2d_rows_no_fallback(params, input, input_ring, filter, bias, output,
                                         output_ring, y_begin, y_end, scratch)) {
    portable_depthwise_conv2d_rows(params, input, input_ring, filter, bias, output, output_ring,
                                   y_begin, y_end, scratch);
  }
}

bool depthwise_conv2d_rows_no_fallback(const DepthwiseConvParams& params, const int8_t* input,
                                       RowRing input_ring, const int8_t* filter,
                                       const int32_t* bias, int8_t* output, RowRing output_ring,
                                       int32_t y_begin, int32_t y_end, Scratch) {
  const DepthwiseShape s = params.shape;  // a local copy: output stores (int8) could alias params
  if (!depthwise_conv_handles(s) || s.stride_h <= 0 || s.stride_w <= 0 || s.dilation_h <= 0 ||
      s.dilation_w <= 0 || s.input_c <= 0 ||
      !multipliers_non_negative_by_signs(params.output_multiplier, s.output_c)) {
    return false;
  }
  if (s.output_c < s.input_c ||
      !internal::row_call_ok(s.batches, s.input_h, s.output_h, s.filter_h, s.stride_h, s.pad_h,
                             s.dilation_h, input_ring, output_ring, y_begin, y_end)) {
    return true;
  }
  const Requantizer rq = make_requantizer(params.output_multiplier, params.output_shift,
                                          params.output_offset, params.act_min, params.act_max);
  const int16_t offset = static_cast<int16_t>(params.input_offset);
  const uint32_t offset2 = pack16(offset, offset);
  const int32_t c_all = s.input_c;
  const int32_t m = s.output_c / s.input_c;  // depth multiplier
  const bool is3x3 = s.filter_h == 3 && s.filter_w == 3;
  const internal::OutputRows out_rows{output, static_cast<ptrdiff_t>(s.output_w) * s.output_c,
                                      output_ring.rows};
  internal::RowTable table(input, static_cast<ptrdiff_t>(s.input_w) * c_all, input_ring.rows);
  Window<TableRows> win{};
  win.x_tap = static_cast<ptrdiff_t>(s.dilation_w) * c_all;
  win.w_row = static_cast<ptrdiff_t>(s.filter_w) * s.output_c;
  win.w_tap = s.output_c;
  internal::PixelWindow pw;
  for (int32_t y = y_begin; y < y_end; ++y) {
    internal::window_rows(s, y, pw);
    const int32_t rows = pw.ky_end > pw.ky_begin ? pw.ky_end - pw.ky_begin : 0;
    const internal::RowTable::Window rows_of_y =
        table.window(y, pw.iy0, s.dilation_h, pw.ky_begin, pw.ky_end);
    win.in.rows = rows_of_y.table + pw.ky_begin;
    // Equally spaced rows (always but where a ring window wraps): the one-step assembly.
    const bool even = rows < 3 || win.in.delta1() == win.in.delta2();
    int8_t* out = out_rows.row(y);
    for (int32_t x = 0; x < s.output_w; ++x, out += s.output_c) {
      internal::window_columns(s, x, pw);
      win.rows = rows;
      win.taps = pw.kx_end > pw.kx_begin ? pw.kx_end - pw.kx_begin : 0;
      if (win.rows == 0 || win.taps == 0) win.rows = win.taps = 0;  // all padding: bias only
      win.in.x = static_cast<ptrdiff_t>(pw.ix0 + pw.kx_begin * s.dilation_w) * c_all;
      win.w = filter + static_cast<ptrdiff_t>(pw.ky_begin * s.filter_w + pw.kx_begin) * s.output_c;
      if (even) {
        pixel<false>(win, is3x3, c_all, m, offset, offset2, bias, rq, out);
      } else {
        pixel<true>(win, is3x3, c_all, m, offset, offset2, bias, rq, out);
      }
    }
  }
  return true;
}

// Bytes b0..b3 of a row: SXTB16 gives (b0, b2), with ROR 8 (b1, b3). The left window (x) takes
// b0 * w0 + b2 * w2 by SMLAD and b1 * w1 by SMLABB; the right one (x + 1) b1 * w0 + b3 * w2 by
// SMLAD and b2 * w1 by SMLATT.
void window3_row_sums(const int8_t* p, ptrdiff_t plane_w, int32_t count, const int32_t* w,
                      int32_t base, int32_t* sums) {
  const uint32_t a0 = pack16(w[0], w[2]), b0 = pack16(w[1], w[1]);
  const uint32_t a1 = pack16(w[3], w[5]), b1 = pack16(w[4], w[4]);
  const uint32_t a2 = pack16(w[6], w[8]), b2 = pack16(w[7], w[7]);
  int32_t x = 0;
  for (; x + 2 <= count; x += 2, p += 2) {
    int32_t left = base, right = base;
    uint32_t v = load4(p);
    uint32_t even = sxtb16(v), odd = sxtb16_ror8(v);
    left = smlabb(odd, b0, smlad(even, a0, left));
    right = smlatt(even, b0, smlad(odd, a0, right));
    v = load4(p + plane_w);
    even = sxtb16(v);
    odd = sxtb16_ror8(v);
    left = smlabb(odd, b1, smlad(even, a1, left));
    right = smlatt(even, b1, smlad(odd, a1, right));
    v = load4(p + 2 * plane_w);
    even = sxtb16(v);
    odd = sxtb16_ror8(v);
    left = smlabb(odd, b2, smlad(even, a2, left));
    right = smlatt(even, b2, smlad(odd, a2, right));
    sums[x] = left;
    sums[x + 1] = right;
  }
  if (x < count) {  // an odd last output
    int32_t sum = base;
    for (int32_t ky = 0; ky < 3; ++ky) {
      for (int32_t kx = 0; kx < 3; ++kx) sum += p[ky * plane_w + kx] * w[3 * ky + kx];
    }
    sums[x] = sum;
  }
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
