// mve DEPTHWISE_CONV_2D, depth multiplier 1: channels in four int32 lanes (VLDRB widening loads,
// VMUL and VADD), four output pixels of a row at a time where all four windows are whole in x, so
// that each filter load feeds four multiply-accumulates; one pixel at a time at the borders (the
// same loop over its in-bounds taps). The input offset leaves the inner loop: sum (x + io) w = sum x w + io sum w,
// with sum w over the taps used, accumulated beside. Channel tails are predicated (VCTP32).
// Filters 3 wide (no dilation in x, stride 1 or 2) or 5 or 7 wide (stride 1) run in blocks of
// three pixels, borders included, each input position loaded once for the block (row3_block). A column (1-D windows along the height) runs
// as a row of the same bytes. One input channel with a depth multiplier
// (depthwise_conv2d_one_input, a function of its own): dot products along the window's rows
// against the filter rearranged into the scratch.

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "mve/instance_tables.h"
#include "mve/kernels.h"
#include "mve/requantize.h"
#include "portable/row_window.h"
#include "portable/window.h"

namespace mote {
namespace kernels {
namespace mve {
namespace {

using depthwise_instances::Layer;

// An empty asm that pins a vector in a register at this point: the scheduler then keeps each
// position's products next to their adds instead of computing many at once (gcc 12 spills the
// accumulators to the stack otherwise).
inline void pin(int32x4_t& v) { __asm__ volatile("" : "+w"(v)); }

// a + x * w: MVE has no vector-by-vector integer multiply-accumulate (VMLA takes a scalar).
inline int32x4_t mla(int32x4_t a, int32x4_t x, int32x4_t w) { return vaddq_s32(a, vmulq_s32(x, w)); }

inline int32x4_t bias_lanes(const int32_t* bias, int32_t c, mve_pred16_t p) {
  return bias != nullptr ? vldrwq_z_s32(bias + c, p) : vdupq_n_s32(0);
}

// Loads four int8 channels widened to int32; predicated (zeroed lanes) only for the last block.
// gcc 12 puts a VPST before every predicated load, so whole blocks load unpredicated.
template <bool kTail>
inline int32x4_t load4(const int8_t* p, mve_pred16_t lanes) {
  return kTail ? vldrbq_z_s32(p, lanes) : vldrbq_s32(p);
}
template <bool kTail>
inline int32x4_t load4w(const int32_t* p, mve_pred16_t lanes) {
  return kTail ? vldrwq_z_s32(p, lanes) : vldrwq_s32(p);
}
template <bool kTail>
inline void store4(int8_t* p, int32x4_t v, mve_pred16_t lanes) {
  if (kTail) {
    vstrbq_p_s32(p, v, lanes);
  } else {
    vstrbq_s32(p, v);
  }
}

// Channels [c, c + 4) of kPixels output pixels (x, x + 1, ...) of one row, batch b, the taps
// of filter rows [ky_begin, ky_end) and columns [kx_begin, kx_end) (every pixel's inside the
// input), row0 the input of tap (ky_begin, kx_begin). kFilterW: the filter width when fixed (3),
// else 0. kTail: the last, partial block of channels.
template <int kPixels, int kFilterW, bool kTail>
inline void pixels_block(const Layer& l, const int8_t* row0, int32_t ky_begin, int32_t ky_end,
                         int32_t kx_begin, int32_t kx_end, int32_t c, int8_t* out) {
  const DepthwiseShape& s = l.s;
  const int32_t c_count = s.input_c;
  const int32_t fw = kFilterW != 0 ? kFilterW : s.filter_w;
  const ptrdiff_t step = static_cast<ptrdiff_t>(s.stride_w) * c_count;  // pixel to pixel
  const ptrdiff_t tap = static_cast<ptrdiff_t>(s.dilation_w) * c_count;
  const ptrdiff_t row_step = static_cast<ptrdiff_t>(s.dilation_h) * s.input_w * c_count;
  const mve_pred16_t p = vctp32q(static_cast<uint32_t>(c_count - c));
  const int32x4_t start = l.bias != nullptr ? load4w<kTail>(l.bias + c, p) : vdupq_n_s32(0);
  int32x4_t a[kPixels];
  for (int k = 0; k < kPixels; ++k) a[k] = start;
  int32x4_t ws = vdupq_n_s32(0);
  const int8_t* px_row = row0 + c;
  const int8_t* pw_row =
      l.filter + (static_cast<ptrdiff_t>(ky_begin) * fw + kx_begin) * c_count + c;
  for (int32_t ky = ky_begin; ky < ky_end; ++ky, px_row += row_step, pw_row += fw * c_count) {
    const int8_t* px = px_row;
    const int8_t* pw = pw_row;
#pragma GCC unroll 3
    for (int32_t kx = kx_begin; kx < kx_end; ++kx, px += tap, pw += c_count) {
      const int32x4_t w = load4<kTail>(pw, p);
      ws = vaddq_s32(ws, w);
      for (int k = 0; k < kPixels; ++k) {
        a[k] = mla(a[k], load4<kTail>(px + k * step, p), w);
        pin(a[k]);
      }
    }
  }
  // Local copies, read after the taps (not held through them): output stores (int8) could alias
  // the layer's fields.
  const OutputStage stage = l.stage;
  const int32_t io = l.io;
  const int32x4_t m = load4w<kTail>(l.multiplier + c, p);
  const Shifts sh = split_shifts(load4w<kTail>(l.shift + c, p));
  for (int k = 0; k < kPixels; ++k) {
    store4<kTail>(out + k * c_count + c, stage.apply(vmlaq_n_s32(a[k], ws, io), m, sh), p);
  }
}

// kPixels output pixels (x, x + 1, ...) of row y, filter columns [kx_begin, kx_end) (inside the
// input for each of them: the whole filter, or a border pixel's own): every channel.
// first_row: the input row of filter row ky_begin, the others dilation_h rows apart after it.
template <int kPixels, int kFilterW>
void pixels(const Layer& layer, const int8_t* first_row, int32_t ky_begin, int32_t ky_end,
            int32_t kx_begin, int32_t kx_end, int32_t x, int8_t* out) {
  // A local copy: output stores (int8) could alias the layer, whose fields every block of
  // channels would then load again.
  const Layer l = layer;
  const DepthwiseShape& s = l.s;
  const int32_t c_count = s.input_c;
  // Input of tap (ky_begin, kx_begin) of pixel x, the first row inside the input.
  const int8_t* row0 =
      first_row +
      static_cast<ptrdiff_t>(x * s.stride_w - s.pad_w + kx_begin * s.dilation_w) * c_count;
  int32_t c = 0;
  for (; c + 4 <= c_count; c += 4) {
    pixels_block<kPixels, kFilterW, false>(l, row0, ky_begin, ky_end, kx_begin, kx_end, c, out);
  }
  if (c < c_count) {
    pixels_block<kPixels, kFilterW, true>(l, row0, ky_begin, ky_end, kx_begin, kx_end, c, out);
  }
}

// count pixels whose windows are whole in x.
template <int kFilterW>
void run_pixels(int32_t count, const Layer& l, const int8_t* first_row, int32_t ky_begin,
                int32_t ky_end, int32_t x, int8_t* out) {
  const int32_t fw = l.s.filter_w;
  switch (count) {
    case 4: pixels<4, kFilterW>(l, first_row, ky_begin, ky_end, 0, fw, x, out); break;
    case 3: pixels<3, kFilterW>(l, first_row, ky_begin, ky_end, 0, fw, x, out); break;
    case 2: pixels<2, kFilterW>(l, first_row, ky_begin, ky_end, 0, fw, x, out); break;
    default: pixels<1, kFilterW>(l, first_row, ky_begin, ky_end, 0, fw, x, out); break;
  }
}

// One output pixel with its in-bounds taps only (the borders, and every pixel of a row whose
// window wraps past a ring's last slot); rows[ky]: the input row of filter row ky.
template <bool kTail>
inline void one_pixel_block(const Layer& l, const int8_t* const* rows,
                            const internal::PixelWindow& w, int32_t c, int8_t* out) {
  const DepthwiseShape& s = l.s;
  const int32_t c_count = s.input_c;
  const mve_pred16_t p = vctp32q(static_cast<uint32_t>(c_count - c));
  int32x4_t a = l.bias != nullptr ? load4w<kTail>(l.bias + c, p) : vdupq_n_s32(0);
  int32x4_t ws = vdupq_n_s32(0);
  const ptrdiff_t at = static_cast<ptrdiff_t>(w.ix0 + w.kx_begin * s.dilation_w) * c_count + c;
  for (int32_t ky = w.ky_begin; ky < w.ky_end; ++ky) {
    const int8_t* px = rows[ky] + at;
    const int8_t* pw = l.filter + static_cast<ptrdiff_t>(ky * s.filter_w + w.kx_begin) * c_count + c;
    for (int32_t kx = w.kx_begin; kx < w.kx_end; ++kx, px += s.dilation_w * c_count, pw += c_count) {
      const int32x4_t f = load4<kTail>(pw, p);
      ws = vaddq_s32(ws, f);
      a = mla(a, load4<kTail>(px, p), f);
    }
  }
  a = vmlaq_n_s32(a, ws, l.io);
  const int32x4_t m = load4w<kTail>(l.multiplier + c, p);
  store4<kTail>(out + c, l.stage.apply(a, m, split_shifts(load4w<kTail>(l.shift + c, p))), p);
}

// Channels [c_begin, input_c) of one pixel (c_begin a multiple of four). (Out of line: gcc 12
// inlined it into depthwise_rows' four calls, which grew and slowed its blocks of pixels.)
__attribute__((noinline)) void one_pixel(const Layer& l, const int8_t* const* rows, const internal::PixelWindow& w,
               int8_t* out, int32_t c_begin = 0) {
  const int32_t c_count = l.s.input_c;
  int32_t c = c_begin;
  for (; c + 4 <= c_count; c += 4) one_pixel_block<false>(l, rows, w, c, out);
  if (c < c_count) one_pixel_block<true>(l, rows, w, c, out);
}

// Filter width kW (3, 5 or 7), dilation 1 in x, stride kStride (1 or 2) in x: kP pixels (x,
// x + 1, ...) of a row share the input positions j = 0 .. (kP - 1) * kStride + kW - 1 of each
// filter row (input column x * stride - pad + j), so each position is loaded once and feeds every
// (pixel, tap) with k * kStride + kx = j; three taps' weights stay in registers, wider filters'
// are loaded where used (MVE's eight vector registers hold no more). The input offset goes into
// the loaded values ((x + io) * w, no sum of weights), so a position outside the input is simply
// skipped: the first kLo and last kHi positions when compiled (the borders of SAME padding), or
// any mask (kBorder: a test per position, the 5- and 7-wide blocks).
// kTable: filter row ky's position 0 at starts[ky] (a window wrapping past a ring's last slot),
// else row0 and row_step bytes after each other.

// What a block of channels reads of the layer, copied once per block of pixels: output stores
// (int8) could alias the layer's fields, which every block of channels then loaded again.
struct Row3Args {
  const int8_t* row0;
  const int8_t* const* starts;
  const int8_t* filter;  // filter row ky_begin
  const int32_t* bias;
  const int32_t* multiplier;
  const int32_t* shift;
  ptrdiff_t row_step;
  int32_t c_count;
  int32_t ky_begin;
  int32_t ky_end;
  int32_t io;
  OutputStage stage;
};

// Channels [c, c + 4); kTail: the last, partial block.
template <int kW, int kP, int kStride, bool kBorder, bool kTail, bool kTable, int kLo, int kHi>
inline void row3_block(const Row3Args& r, uint32_t valid, int32_t c, int8_t* out) {
  constexpr int kPositions = (kP - 1) * kStride + kW;
  const int32_t c_count = r.c_count;
  const mve_pred16_t p = vctp32q(static_cast<uint32_t>(c_count - c));
  const int32x4_t start = r.bias != nullptr ? load4w<kTail>(r.bias + c, p) : vdupq_n_s32(0);
  int32x4_t a[kP];
  for (int k = 0; k < kP; ++k) a[k] = start;
  const int8_t* px = r.row0 + c;
  const int8_t* pw = r.filter + c;
  for (int32_t ky = r.ky_begin; ky < r.ky_end; ++ky, px += r.row_step, pw += kW * c_count) {
    const int8_t* pr = kTable ? r.starts[ky] + c : px;
    int32x4_t w3[3] = {};
    if constexpr (kW == 3) {
      for (int kx = 0; kx < 3; ++kx) w3[kx] = load4<kTail>(pw + kx * c_count, p);
    }
#pragma GCC unroll 16
    for (int j = 0; j < kPositions; ++j) {
      // A position outside the input adds nothing (and is never read).
      if (j < kLo || j >= kPositions - kHi) continue;
      if (kBorder && ((valid >> j) & 1u) == 0) continue;
      const int32x4_t x = vaddq_n_s32(load4<kTail>(pr + j * c_count, p), r.io);
#pragma GCC unroll 4
      for (int k = 0; k < kP; ++k) {
        const int kx = j - k * kStride;
        if (kx < 0 || kx >= kW) continue;
        a[k] = mla(a[k], x, kW == 3 ? w3[kx] : load4<kTail>(pw + kx * c_count, p));
        pin(a[k]);
      }
    }
  }
  const int32x4_t m = load4w<kTail>(r.multiplier + c, p);
  const Shifts sh = split_shifts(load4w<kTail>(r.shift + c, p));
  for (int k = 0; k < kP; ++k) store4<kTail>(out + k * c_count + c, r.stage.apply(a[k], m, sh), p);
}

// kP pixels of row y from x (see row3_block), every channel (kOwnTail false: every whole block of
// four, returning the first channel left); row0: input column x * kStride - pad_w of the first
// filter row.
template <int kW, int kP, int kStride, bool kBorder, bool kTable, int kLo = 0, int kHi = 0,
          bool kOwnTail = true>
inline int32_t row_pixels(const Layer& l, const int8_t* row0, const int8_t* const* starts,
                       const internal::PixelWindow& pw, uint32_t valid, int8_t* out) {
  const DepthwiseShape& s = l.s;
  const Row3Args r{row0,
                   starts,
                   l.filter + static_cast<ptrdiff_t>(pw.ky_begin) * kW * s.input_c,
                   l.bias,
                   l.multiplier,
                   l.shift,
                   static_cast<ptrdiff_t>(s.dilation_h) * s.input_w * s.input_c,
                   s.input_c,
                   pw.ky_begin,
                   pw.ky_end,
                   l.io,
                   l.stage};
  const int32_t c_count = r.c_count;
  int32_t c = 0;
  for (; c + 4 <= c_count; c += 4) {
    row3_block<kW, kP, kStride, kBorder, false, kTable, kLo, kHi>(r, valid, c, out);
  }
  if (kOwnTail && c < c_count) {
    row3_block<kW, kP, kStride, kBorder, true, kTable, kLo, kHi>(r, valid, c, out);
    c = c_count;
  }
  return c;
}

}  // namespace

namespace depthwise_instances {

// kP pixels of row y from x (see row3_block), every channel. `valid`: bit j set when position j
// is inside the input. kTable: the window's rows in rows[ky] (first_row unused).
// (Called through kDepthwiseInstances: an image links only the variants its layers run.)
template <int kP, int kStride, bool kBorder, bool kTable>
void row3_pixels(const Layer& l, const int8_t* first_row, const int8_t* const* rows,
                 const internal::PixelWindow& pw, int32_t x, uint32_t valid, int8_t* out) {
  // Position 0 of the first filter row inside the input (the column may be -1: never loaded).
  const ptrdiff_t at = static_cast<ptrdiff_t>(x * kStride - l.s.pad_w) * l.s.input_c;
  const int8_t* row0 = kTable ? nullptr : first_row + at;
  const int8_t* starts[kTable ? kMaxRowWindowRows : 1];
  if (kTable) {
    for (int32_t ky = pw.ky_begin; ky < pw.ky_end; ++ky) starts[ky] = rows[ky] + at;
  }
  if constexpr (!kBorder) {
    row_pixels<3, kP, kStride, false, kTable>(l, row0, starts, pw, valid, out);
  } else {
    // The borders of SAME padding (one position outside at the left of a row's first block,
    // at the right of its last; both, on a row three pixels wide), and a table window of fewer
    // than three pixels, with their positions known when compiled (a test per position took
    // gcc 12 to spilling accumulators). Other masks (wider padding, rows of one or two pixels),
    // and the last, partial block of channels of the rarer cases, one pixel at a time, their
    // in-bounds taps only (a body per mask and tail would cost flash).
    constexpr int kPositions = (kP - 1) * kStride + 3;
    constexpr uint32_t kFull = (1u << kPositions) - 1;
    constexpr uint32_t kLast = 1u << (kPositions - 1);
    int32_t c = 0;
    if (valid == (kFull & ~1u)) {
      if constexpr (kP == 3) {  // (a first block of fewer pixels is also the last)
        c = row_pixels<3, kP, kStride, false, kTable, 1, 0>(l, row0, starts, pw, valid, out);
      }
    } else if (valid == (kFull & ~kLast)) {
      c = row_pixels<3, kP, kStride, false, kTable, 0, 1>(l, row0, starts, pw, valid, out);
    } else if (valid == (kFull & ~kLast & ~1u)) {
      if constexpr (kP == 3 && !kTable) {
        c = row_pixels<3, kP, kStride, false, kTable, 1, 1, false>(l, row0, starts, pw, valid,
                                                                   out);
      }
    } else if (valid == kFull) {
      if constexpr (kTable && kP < 3) {
        c = row_pixels<3, kP, kStride, false, kTable, 0, 0, false>(l, row0, starts, pw, valid,
                                                                   out);
      }
    }
    if (c < l.s.input_c) {
      internal::PixelWindow w = pw;
      for (int k = 0; k < kP; ++k) {
        internal::window_columns(l.s, x + k, w);
        one_pixel(l, rows, w, out + k * l.s.input_c, c);
      }
    }
  }
}

// The same for filters 5 or 7 wide (kW) at stride 1, on whole maps and ring windows that do not
// wrap.
template <int kW, int kP, bool kBorder>
void wide_pixels(const Layer& l, const int8_t* first_row, const internal::PixelWindow& pw,
                 int32_t x, uint32_t valid, int8_t* out) {
  const ptrdiff_t at = static_cast<ptrdiff_t>(x - l.s.pad_w) * l.s.input_c;
  row_pixels<kW, kP, 1, kBorder, false>(l, first_row + at, nullptr, pw, valid, out);
}

}  // namespace depthwise_instances

namespace {

// Bit j set for each of a block's `positions` input columns ix0 + j that lies inside the input.
inline uint32_t valid_positions(int32_t ix0, int32_t positions, int32_t input_w) {
  uint32_t valid = 0;
  for (int32_t j = 0; j < positions; ++j) {
    if (ix0 + j >= 0 && ix0 + j < input_w) valid |= 1u << j;
  }
  return valid;
}

// kTable: the window wraps past a ring's last slot, its rows in rows[ky]. Blocks of three
// inside the row have their own table variant (most of a wrapped row's pixels: a ring of three
// rows wraps two rows in three); the rest take the border variants (any mask of valid
// positions), to keep flash down.
template <int kStride, bool kTable>
void row3(const Layer& l, const int8_t* first_row, const int8_t* const* rows,
          const internal::PixelWindow& pw, int32_t x, int32_t count, int8_t* out) {
  const DepthwiseShape& s = l.s;
  constexpr int kMaxPositions = 2 * kStride + 3;
  const int32_t positions = (count - 1) * kStride + 3;
  const uint32_t valid = valid_positions(x * kStride - s.pad_w, positions, s.input_w);
  const bool border = valid != (1u << positions) - 1;
  static_assert(kMaxPositions <= 16, "positions fit the mask");
  // (Fewer than three pixels through the table take the border variant.)
  const int instance = row3_instance(count, kStride, border || (kTable && count < 3), kTable);
  kDepthwiseInstances.row3[instance](l, first_row, rows, pw, x, valid, out);
}

// Filters kW (5 or 7) wide, stride 1: the blocks of three of row3, on rows whose window does not
// wrap.
template <int kW>
void wide(const Layer& l, const int8_t* first_row, const internal::PixelWindow& pw, int32_t x,
          int32_t count, int8_t* out) {
  const int32_t positions = count - 1 + kW;
  const uint32_t valid = valid_positions(x - l.s.pad_w, positions, l.s.input_w);
  static_assert(2 + kW <= 16, "positions fit the mask");
  const bool border = valid != (1u << positions) - 1;
  kDepthwiseInstances.wide[wide_instance(kW, count, border)](l, first_row, pw, x, valid, out);
}

// Depth multiplier m > 1: output channel k reads input channel k / m, so the four lanes of a block
// of output channels gather their inputs (VLDRB gather with the lanes' channel offsets: with one
// input channel, all four lanes read the same byte). One output pixel at a time, its in-bounds
// taps only; output channels in blocks of four, the last predicated.
template <bool kTail>
inline void multiplier_block(const Layer& l, const int8_t* const* rows,
                             const internal::PixelWindow& w, int32_t m, int32_t oc, int8_t* out) {
  const DepthwiseShape& s = l.s;
  const int32_t co = s.output_c;
  const int32_t ci = s.input_c;
  const mve_pred16_t p = vctp32q(static_cast<uint32_t>(co - oc));
  const int32_t ic0 = oc / m;
  uint32_t lane_offsets[4];
  for (int32_t k = 0; k < 4; ++k) lane_offsets[k] = static_cast<uint32_t>((oc + k) / m - ic0);
  const uint32x4_t offsets = vldrwq_u32(lane_offsets);
  const int32_t io = l.io;
  int32x4_t a = l.bias != nullptr ? load4w<kTail>(l.bias + oc, p) : vdupq_n_s32(0);
  for (int32_t ky = w.ky_begin; ky < w.ky_end; ++ky) {
    const int8_t* row = rows[ky] + ic0;
    for (int32_t kx = w.kx_begin; kx < w.kx_end; ++kx) {
      const int32_t ix = w.ix0 + kx * s.dilation_w;
      const int8_t* px = row + static_cast<ptrdiff_t>(ix) * ci;
      const int32x4_t x = kTail ? vldrbq_gather_offset_z_s32(px, offsets, p)
                                : vldrbq_gather_offset_s32(px, offsets);
      const int32x4_t f =
          load4<kTail>(l.filter + static_cast<ptrdiff_t>(ky * s.filter_w + kx) * co + oc, p);
      a = mla(a, vaddq_n_s32(x, io), f);
    }
  }
  const int32x4_t mult = load4w<kTail>(l.multiplier + oc, p);
  store4<kTail>(out + oc, l.stage.apply(a, mult, split_shifts(load4w<kTail>(l.shift + oc, p))), p);
}

// One input channel, depth multiplier output_c: output channel k of a pixel is the dot product of
// its window with filter channel k. With the filter rearranged (l.taps, transposed_taps), a
// window row's input bytes and each channel's weights are both contiguous: VMLADAVA over eight
// int16 lanes (the input plus its offset, the weight) adds eight products to a channel's sum.
// Four channels at a time, their sums in scalars, sharing each row's input load; the weights in
// the order the loop reads them, zero past the filter's width. Only the in-bounds rows; the
// columns of a border pixel (or a width not a multiple of eight) by a predicate on the input,
// whose lanes outside the window are zero (offset not added).
// kTail: the last, partial block of channels (their lanes not stored). kOneChunk: a filter at
// most eight wide (no loop over chunks).
template <bool kTail, bool kWhole, bool kOneChunk>
inline void single_input_block(const Layer& l, const int8_t* const* rows,
                               const internal::PixelWindow& w, const mve_pred16_t* masks,
                               int32_t oc, int8_t* out) {
  const DepthwiseShape& s = l.s;
  const int32_t chunks = kOneChunk ? 1 : (s.filter_w + 7) / 8;
  const int16_t io = static_cast<int16_t>(l.io);
  const int8_t* wt =
      l.taps + (static_cast<ptrdiff_t>(oc) * s.filter_h + 4 * w.ky_begin) * chunks * 8;
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  for (int32_t ky = w.ky_begin; ky < w.ky_end; ++ky) {
    const int8_t* px = rows[ky] + w.ix0;
    for (int32_t c = 0; c < chunks; ++c, px += 8, wt += 32) {
      int16x8_t x;
      if (kWhole) {
        x = vaddq_n_s16(vldrbq_s16(px), io);
      } else {
        // Lanes outside the window are not read (px may point before the row).
        x = vaddq_m_n_s16(vdupq_n_s16(0), vldrbq_z_s16(px, masks[c]), io, masks[c]);
      }
      a0 = vmladavaq_s16(a0, x, vldrbq_s16(wt));
      a1 = vmladavaq_s16(a1, x, vldrbq_s16(wt + 8));
      a2 = vmladavaq_s16(a2, x, vldrbq_s16(wt + 16));
      a3 = vmladavaq_s16(a3, x, vldrbq_s16(wt + 24));
    }
  }
  int32x4_t a = vdupq_n_s32(a0);
  a = vsetq_lane_s32(a1, a, 1);
  a = vsetq_lane_s32(a2, a, 2);
  a = vsetq_lane_s32(a3, a, 3);
  const mve_pred16_t p = vctp32q(static_cast<uint32_t>(s.output_c - oc));
  a = vaddq_s32(a, bias_lanes(l.bias, oc, p));
  const int32x4_t m = load4w<kTail>(l.multiplier + oc, p);
  store4<kTail>(out + oc, l.stage.apply(a, m, split_shifts(load4w<kTail>(l.shift + oc, p))), p);
}

template <bool kWhole, bool kOneChunk>
inline void single_input_pixel(const Layer& l, const int8_t* const* rows,
                               const internal::PixelWindow& w, const mve_pred16_t* masks,
                               int8_t* out) {
  const int32_t co = l.s.output_c;
  int32_t oc = 0;
  for (; oc + 4 <= co; oc += 4) {
    single_input_block<false, kWhole, kOneChunk>(l, rows, w, masks, oc, out);
  }
  if (oc < co) single_input_block<true, kWhole, kOneChunk>(l, rows, w, masks, oc, out);
}

// One input channel with a multiplier (l.taps set): one output row, one pixel at a time.
void single_input_row(const Layer& l, const int8_t* const* rows, internal::PixelWindow& pw,
                      int8_t* out) {
  const DepthwiseShape& s = l.s;
  const int32_t chunks = (s.filter_w + 7) / 8;
  mve_pred16_t masks[kMaxSingleInputWidth / 8];
  for (int32_t x = 0; x < s.output_w; ++x, out += s.output_c) {
    internal::window_columns(s, x, pw);
    if (pw.kx_begin == 0 && pw.kx_end == s.filter_w && s.filter_w % 8 == 0) {
      s.filter_w == 8 ? single_input_pixel<true, true>(l, rows, pw, masks, out)
                      : single_input_pixel<true, false>(l, rows, pw, masks, out);
      continue;
    }
    // Chunk c's lanes are columns 8c .. 8c + 7 of the filter: those in [kx_begin, kx_end).
    for (int32_t c = 0; c < chunks; ++c) {
      const int32_t lo = internal::min_i32(8, internal::max_i32(0, pw.kx_begin - 8 * c));
      const int32_t hi = internal::min_i32(8, internal::max_i32(0, pw.kx_end - 8 * c));
      masks[c] = static_cast<mve_pred16_t>(vctp16q(static_cast<uint32_t>(hi)) &
                                           ~vctp16q(static_cast<uint32_t>(lo)));
    }
    s.filter_w <= 8 ? single_input_pixel<false, true>(l, rows, pw, masks, out)
                    : single_input_pixel<false, false>(l, rows, pw, masks, out);
  }
}

// The filter of a single-input layer rearranged into the scratch in the order single_input_block
// reads it (depthwise_conv_scratch_bytes): for each block of four output channels, each filter
// row, each chunk of eight columns, the four channels' eight weights, zero past the filter's
// width or its channels; gathered eight at a time. Null for other layers, or when the scratch is
// missing (the gathering multiplier path then runs).
const int8_t* transposed_taps(const DepthwiseShape& s, const int8_t* filter, Scratch scratch) {
  const size_t bytes = depthwise_conv_scratch_bytes(s);
  if (bytes == 0 || scratch.data == nullptr || scratch.size < bytes) return nullptr;
  const int32_t co = s.output_c;
  const int32_t chunks = (s.filter_w + 7) / 8;
  // Lane t of a gather reads column 8c + t, t * co bytes on.
  const uint16x8_t offsets = vmulq_n_u16(vidupq_n_u16(0, 1), static_cast<uint16_t>(co));
  int8_t* dst = scratch.data;
  for (int32_t oc = 0; oc < co; oc += 4) {
    for (int32_t ky = 0; ky < s.filter_h; ++ky) {
      for (int32_t c = 0; c < chunks; ++c) {
        const mve_pred16_t p = vctp16q(static_cast<uint32_t>(s.filter_w - 8 * c));
        const int8_t* src = filter + (static_cast<ptrdiff_t>(ky) * s.filter_w + 8 * c) * co;
        for (int32_t k = oc; k < oc + 4; ++k, dst += 8) {
          const int16x8_t v =
              k < co ? vldrbq_gather_offset_z_s16(src + k, offsets, p) : vdupq_n_s16(0);
          vstrbq_s16(dst, v);
        }
      }
    }
  }
  return scratch.data;
}

// The input rows of a call: row iy at data + iy * row_bytes (the whole map of one image,
// rows <= 0) or at data + (iy mod rows) * row_bytes (a ring).
struct InputRows {
  const int8_t* data;
  ptrdiff_t row_bytes;
  int32_t rows;
  int32_t slot(int32_t iy) const { return ring_slot(rows, iy); }
  const int8_t* row(int32_t iy) const { return data + static_cast<ptrdiff_t>(slot(iy)) * row_bytes; }
};

// Depth multiplier above 1: one output row, one pixel at a time.
// (Out of line: inlined into depthwise_rows, its loop took registers that the other paths'
// loops then lacked.)
__attribute__((noinline)) void multiplier_row(const Layer& l, const int8_t* const* rows,
                                              internal::PixelWindow& pw, int8_t* out) {
  const DepthwiseShape& s = l.s;
  const int32_t co = s.output_c;
  const int32_t m = co / s.input_c;
  for (int32_t x = 0; x < s.output_w; ++x, out += co) {
    internal::window_columns(s, x, pw);
    int32_t oc = 0;
    for (; oc + 4 <= co; oc += 4) multiplier_block<false>(l, rows, pw, m, oc, out);
    if (oc < co) multiplier_block<true>(l, rows, pw, m, oc, out);
  }
}

// Depth multiplier 1, one output row (window rows in pw) whose window rows are equally spaced in
// memory (dilation_h rows apart from first_row, the input row of filter row ky_begin: a whole
// map, or a ring window that does not wrap); rows[ky] the same rows, for the border pixels.
void spaced_row(const Layer& l, const int8_t* first_row, const int8_t* const* rows,
                internal::PixelWindow& pw, int8_t* out) {
  const DepthwiseShape& s = l.s;
  const int32_t c_count = s.input_c;
  if (depthwise_in_threes(s)) {
    // Blocks of three pixels, borders included.
    const int width = s.filter_w * 2 + s.stride_w;  // one case per width and stride
    for (int32_t x = 0; x < s.output_w; x += 3) {
      const int32_t count = internal::min_i32(3, s.output_w - x);
      if (pw.ky_begin >= pw.ky_end) {
        // No filter row inside the input: the bias alone (as portable's empty sums).
        internal::window_columns(s, x, pw);
        for (int32_t k = 0; k < count; ++k) one_pixel(l, rows, pw, out + k * c_count);
      } else {
        switch (width) {
          case 3 * 2 + 1: row3<1, false>(l, first_row, rows, pw, x, count, out); break;
          case 3 * 2 + 2: row3<2, false>(l, first_row, rows, pw, x, count, out); break;
          case 5 * 2 + 1: wide<5>(l, first_row, pw, x, count, out); break;
          default: wide<7>(l, first_row, pw, x, count, out); break;
        }
      }
      out += count * c_count;
    }
    return;
  }
  int32_t x = 0;
  while (x < s.output_w) {
    internal::window_columns(s, x, pw);
    if (pw.kx_begin != 0 || pw.kx_end != s.filter_w) {
      // A border pixel: the blocks' loop on its own columns (its rows are spaced too).
      pixels<1, 0>(l, first_row, pw.ky_begin, pw.ky_end, pw.kx_begin, pw.kx_end, x, out);
      ++x;
      out += c_count;
      continue;
    }
    // Up to four pixels whose windows are whole in x (the last one decides it).
    int32_t count = internal::min_i32(4, s.output_w - x);
    while (count > 1 &&
           (x + count - 1) * s.stride_w - s.pad_w + (s.filter_w - 1) * s.dilation_w >= s.input_w) {
      --count;
    }
    // (3-wide filters mostly take the row3 path above; the rest share the general width.)
    run_pixels<0>(count, l, first_row, pw.ky_begin, pw.ky_end, x, out);
    x += count;
    out += count * c_count;
  }
}

// Output rows [y_begin, y_end) of one image. Each row's window rows are looked up once into a
// table (one modulo per filter row for a ring). A row whose window rows are equally spaced runs
// the blocks of pixels above; a row whose window wraps past a ring's last slot (S - 1 of every R
// rows of stride 1, for a window of S rows in a ring of R) runs one pixel at a time through the
// table, its in-bounds taps only, also on mve (about the same instructions per pixel as the
// blocks of three). Needs filter_h <= kMaxRowWindowRows (depthwise_conv_handles).
void depthwise_rows(const Layer& l, const InputRows& in, const internal::OutputRows& out,
                    int32_t y_begin, int32_t y_end) {
  const DepthwiseShape& s = l.s;
  const bool multiplier = s.output_c != s.input_c;
  const int8_t* rows[kMaxRowWindowRows];
  internal::PixelWindow pw;
  for (int32_t y = y_begin; y < y_end; ++y) {
    internal::window_rows(s, y, pw);
    int8_t* o = out.row(y);
    bool spaced = true;
    const int8_t* first_row = nullptr;
    if (pw.ky_begin < pw.ky_end) {
      const int32_t iy = pw.iy0 + pw.ky_begin * s.dilation_h;
      const int32_t slot = in.slot(iy);
      first_row = in.data + static_cast<ptrdiff_t>(slot) * in.row_bytes;
      spaced = in.rows <= 0 ||
               slot + (pw.ky_end - pw.ky_begin - 1) * s.dilation_h < in.rows;
      for (int32_t ky = pw.ky_begin; ky < pw.ky_end; ++ky) {
        rows[ky] = in.row(pw.iy0 + ky * s.dilation_h);
      }
    }
    if (multiplier) {
      multiplier_row(l, rows, pw, o);
    } else if (spaced) {
      spaced_row(l, first_row, rows, pw, o);
    } else if (s.filter_w == 3 && s.dilation_w == 1 && (s.stride_w == 1 || s.stride_w == 2)) {
      // The blocks of three through the table (a wrapped window has rows inside the input).
      for (int32_t x = 0; x < s.output_w; x += 3, o += 3 * s.input_c) {
        const int32_t count = internal::min_i32(3, s.output_w - x);
        if (s.stride_w == 1) {
          row3<1, true>(l, nullptr, rows, pw, x, count, o);
        } else {
          row3<2, true>(l, nullptr, rows, pw, x, count, o);
        }
      }
    } else {
      for (int32_t x = 0; x < s.output_w; ++x, o += s.input_c) {
        internal::window_columns(s, x, pw);
        one_pixel(l, rows, pw, o);
      }
    }
  }
}

bool mve_takes(const DepthwiseShape& s) {
  return s.stride_h > 0 && s.stride_w > 0 && s.dilation_h > 0 && s.dilation_w > 0 &&
         s.input_c > 0 && depthwise_conv_handles(s);
}

Layer layer_of(const DepthwiseConvParams& params, const int8_t* filter, const int32_t* bias) {
  return Layer{params.shape,
               filter,
               nullptr,
               bias,
               params.output_multiplier,
               params.output_shift,
               params.input_offset,
               make_output_stage(params.output_offset, params.act_min, params.act_max)};
}

}  // namespace

// The whole tensor: each image's rows [0, output_h), its whole map as the rows.
void depthwise_conv2d(const DepthwiseConvParams& params, const int8_t* input, const int8_t* filter,
                      const int32_t* bias, int8_t* output, Scratch scratch) {
  if (!depthwise_conv2d_no_fallback(params, input, filter, bias, output, scratch)) {
    portable_depthwise_conv2d(params, input, filter, bias, output, scratch);
  }
}

bool depthwise_conv2d_no_fallback(const DepthwiseConvParams& params, const int8_t* input,
                                  const int8_t* filter, const int32_t* bias, int8_t* output,
                                  Scratch scratch) {
  if (!mve_takes(params.shape)) return false;
  const DepthwiseShape row = internal::depthwise_column_as_row(params.shape);
  if (row.input_h != params.shape.input_h) {  // a column: as its row (once: a row is no column)
    DepthwiseConvParams as_row = params;
    as_row.shape = row;
    return depthwise_conv2d_no_fallback(as_row, input, filter, bias, output, scratch);
  }
  // A local copy: output stores (int8) could alias params.
  const Layer l = layer_of(params, filter, bias);
  const DepthwiseShape& s = l.s;
  const ptrdiff_t in_row = static_cast<ptrdiff_t>(s.input_w) * s.input_c;
  const ptrdiff_t out_row = static_cast<ptrdiff_t>(s.output_w) * s.output_c;
  for (int32_t b = 0; b < s.batches; ++b) {
    const InputRows in{input + b * s.input_h * in_row, in_row, 0};
    const internal::OutputRows out{output + b * s.output_h * out_row, out_row, 0};
    depthwise_rows(l, in, out, 0, s.output_h);
  }
  return true;
}

bool depthwise_conv2d_one_input(const DepthwiseConvParams& params, const int8_t* input,
                                const int8_t* filter, const int32_t* bias, int8_t* output,
                                Scratch scratch) {
  if (!mve_takes(params.shape)) return false;
  Layer l = layer_of(params, filter, bias);  // a local copy, as above
  l.taps = transposed_taps(l.s, filter, scratch);
  if (l.taps == nullptr) return false;
  const DepthwiseShape& s = l.s;
  const int8_t* rows[kMaxRowWindowRows];
  internal::PixelWindow pw;
  int8_t* out = output;
  for (int32_t b = 0; b < s.batches; ++b) {
    for (int32_t y = 0; y < s.output_h; ++y, out += s.output_w * s.output_c) {
      internal::window_rows(s, y, pw);
      for (int32_t ky = pw.ky_begin; ky < pw.ky_end; ++ky) {
        rows[ky] = input + (static_cast<ptrdiff_t>(b) * s.input_h + pw.iy0 + ky * s.dilation_h) *
                               s.input_w;
      }
      single_input_row(l, rows, pw, out);
    }
  }
  return true;
}

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
  if (!mve_takes(params.shape)) return false;
  const Layer l = layer_of(params, filter, bias);  // a local copy, as above
  const DepthwiseShape& s = l.s;
  // Where portable refuses (mve_takes covered the rest of its checks).
  if (!internal::row_call_ok(s.batches, s.input_h, s.output_h, s.filter_h, s.stride_h, s.pad_h,
                             s.dilation_h, input_ring, output_ring, y_begin, y_end)) {
    return true;
  }
  const InputRows in{input, static_cast<ptrdiff_t>(s.input_w) * s.input_c, input_ring.rows};
  const internal::OutputRows out{output, static_cast<ptrdiff_t>(s.output_w) * s.output_c,
                                 output_ring.rows};
  depthwise_rows(l, in, out, y_begin, y_end);
  return true;
}

// Every instance, for the tables to choose from (instance_tables.cc).
namespace depthwise_instances {
#define MOTE_MVE_ROW3(p, stride, border, table)                                               \
  template void row3_pixels<p, stride, border, table>(const Layer&, const int8_t*,           \
                                                      const int8_t* const*,                  \
                                                      const internal::PixelWindow&, int32_t, \
                                                      uint32_t, int8_t*);
#define MOTE_MVE_ROW3_OF(p, stride)   \
  MOTE_MVE_ROW3(p, stride, false, false) \
  MOTE_MVE_ROW3(p, stride, true, false)  \
  MOTE_MVE_ROW3(p, stride, true, true)
MOTE_MVE_ROW3_OF(1, 1)
MOTE_MVE_ROW3_OF(1, 2)
MOTE_MVE_ROW3_OF(2, 1)
MOTE_MVE_ROW3_OF(2, 2)
MOTE_MVE_ROW3_OF(3, 1)
MOTE_MVE_ROW3_OF(3, 2)
MOTE_MVE_ROW3(3, 1, false, true)
MOTE_MVE_ROW3(3, 2, false, true)
#undef MOTE_MVE_ROW3_OF
#undef MOTE_MVE_ROW3
#define MOTE_MVE_WIDE(w, p, border)                                                           \
  template void wide_pixels<w, p, border>(const Layer&, const int8_t*,                         \
                                          const internal::PixelWindow&, int32_t, uint32_t,     \
                                          int8_t*);
#define MOTE_MVE_WIDE_OF(w)                                                                   \
  MOTE_MVE_WIDE(w, 1, false) MOTE_MVE_WIDE(w, 1, true) MOTE_MVE_WIDE(w, 2, false)             \
  MOTE_MVE_WIDE(w, 2, true) MOTE_MVE_WIDE(w, 3, false) MOTE_MVE_WIDE(w, 3, true)
MOTE_MVE_WIDE_OF(5)
MOTE_MVE_WIDE_OF(7)
#undef MOTE_MVE_WIDE_OF
#undef MOTE_MVE_WIDE
}  // namespace depthwise_instances

}  // namespace mve
}  // namespace kernels
}  // namespace mote
