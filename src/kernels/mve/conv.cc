// mve CONV_2D: int8 dot products of 16 lanes (VMLADAVA), four rows of input by one filter row per
// inner loop, so that each filter load feeds four of them; the filter row's sum (VADDVA, in the
// same loop) carries the input offset: sum (x + io) w = sum x w + io sum w.
//  - 1x1 (no padding): the input pixels are the rows; no scratch.
//  - otherwise im2col: four int8 columns of x (the input zero point for padding, so that
//    x + io = 0 there), then the same loop.
//  - grouped (filter_c < input_c, always im2col): for each block of four pixels, group after
//    group, four columns of the group's filter_c channels, then the group's filter rows and output
//    channels.
// The four sums of one output channel are requantized as one vector (mve/requantize.h) and
// stored into the four pixels with one byte scatter. Depth tails are predicated: four rows by a
// tail-predicated loop (WLSTP/LETP), fewer rows by a last step under VCTP8.

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "mve/bytes.h"
#include "mve/instance_tables.h"
#include "mve/kernels.h"
#include "mve/requantize.h"
#include "portable/row_window.h"
#include "portable/window.h"

namespace mote {
namespace kernels {
namespace mve {
namespace {

using conv_instances::InputRows;
using conv_instances::Quant;

// The four sums of one output channel as a vector (lane k: row k), plus the channel's base.
inline int32x4_t sums(int32_t a0, int32_t a1, int32_t a2, int32_t a3, int32_t base) {
  int32x4_t acc = vdupq_n_s32(a0);
  acc = vsetq_lane_s32(a1, acc, 1);
  acc = vsetq_lane_s32(a2, acc, 2);
  acc = vsetq_lane_s32(a3, acc, 3);
  return vaddq_n_s32(acc, base);
}

// The sums of one output channel over depth > 16 (filter row w): a<k> for rows k < kRows
// (x<k>) and the filter row's sum ws. kTail: a last, predicated step of depth & 15 bytes.
// Rows: the row pointers by value or by const reference, which gcc 12 schedules differently:
// values suit the loop over channels of four_rows<1..4>, references the groups of four
// channels of four_rows<5> (19k instructions apart on KWS streamed on the M55).
struct ChannelSums {
  int32_t a0, a1, a2, a3, a4;
  int32_t ws;
};
template <int kRows, bool kTail, typename Rows>
__attribute__((always_inline)) inline ChannelSums channel_sums(Rows x0, Rows x1, Rows x2, Rows x3,
                                                               Rows x4, const int8_t* w,
                                                               int32_t more,
                                                               mve_pred16_t tail_pred) {
  // Pointers stepped by 16 so that the loads write their address back (no separate adds).
  const int8_t* p0 = x0 + 16;
  const int8_t* p1 = x1 + 16;
  const int8_t* p2 = x2 + 16;
  const int8_t* p3 = x3 + 16;
  const int8_t* p4 = x4 + 16;
  const int8_t* pw = w + 16;
  const int8x16_t w0 = vldrbq_s8(w);
  int32_t ws = vaddvq_s8(w0);
  int32_t a0 = vmladavq_s8(vldrbq_s8(x0), w0);
  int32_t a1 = kRows > 1 ? vmladavq_s8(vldrbq_s8(x1), w0) : 0;
  int32_t a2 = kRows > 2 ? vmladavq_s8(vldrbq_s8(x2), w0) : 0;
  int32_t a3 = kRows > 3 ? vmladavq_s8(vldrbq_s8(x3), w0) : 0;
  int32_t a4 = kRows > 4 ? vmladavq_s8(vldrbq_s8(x4), w0) : 0;
  for (int32_t i = more; i > 0; --i) {
    const int8x16_t wv = vldrbq_s8(pw);
    pw += 16;
    ws = vaddvaq_s8(ws, wv);
    a0 = vmladavaq_s8(a0, vldrbq_s8(p0), wv);
    p0 += 16;
    if (kRows > 1) {
      a1 = vmladavaq_s8(a1, vldrbq_s8(p1), wv);
      p1 += 16;
    }
    if (kRows > 2) {
      a2 = vmladavaq_s8(a2, vldrbq_s8(p2), wv);
      p2 += 16;
    }
    if (kRows > 3) {
      a3 = vmladavaq_s8(a3, vldrbq_s8(p3), wv);
      p3 += 16;
    }
    if (kRows > 4) {
      a4 = vmladavaq_s8(a4, vldrbq_s8(p4), wv);
      p4 += 16;
    }
  }
  if (kTail) {
    // Zeroed lanes add nothing to the sums.
    const int8x16_t wv = vldrbq_z_s8(pw, tail_pred);
    ws = vaddvaq_s8(ws, wv);
    a0 = vmladavaq_s8(a0, vldrbq_z_s8(p0, tail_pred), wv);
    if (kRows > 1) a1 = vmladavaq_s8(a1, vldrbq_z_s8(p1, tail_pred), wv);
    if (kRows > 2) a2 = vmladavaq_s8(a2, vldrbq_z_s8(p2, tail_pred), wv);
    if (kRows > 3) a3 = vmladavaq_s8(a3, vldrbq_z_s8(p3, tail_pred), wv);
    if (kRows > 4) a4 = vmladavaq_s8(a4, vldrbq_z_s8(p4, tail_pred), wv);
  }
  return ChannelSums{a0, a1, a2, a3, a4, ws};
}

// channel_sums of four rows over any depth in one tail-predicated loop (WLSTP/LETP: the last,
// partial step of 16 is predicated by the loop itself, without a separate tail step).
inline ChannelSums four_channel_sums(const int8_t* x0, const int8_t* x1, const int8_t* x2,
                                     const int8_t* x3, const int8_t* w, int32_t depth) {
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, ws = 0;
  __asm volatile(
      "   wlstp.8 lr, %[n], 1f\n"
      "2:\n"
      "   vldrb.8 q0, [%[w]], #16\n"
      "   vldrb.8 q1, [%[x0]], #16\n"
      "   vaddva.s8 %[ws], q0\n"
      "   vldrb.8 q2, [%[x1]], #16\n"
      "   vmladava.s8 %[a0], q0, q1\n"
      "   vldrb.8 q3, [%[x2]], #16\n"
      "   vmladava.s8 %[a1], q0, q2\n"
      "   vldrb.8 q1, [%[x3]], #16\n"
      "   vmladava.s8 %[a2], q0, q3\n"
      "   vmladava.s8 %[a3], q0, q1\n"
      "   letp lr, 2b\n"
      "1:\n"
      : [w] "+r"(w), [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [x3] "+r"(x3),
        [ws] "+Te"(ws), [a0] "+Te"(a0), [a1] "+Te"(a1), [a2] "+Te"(a2), [a3] "+Te"(a3)
      : [n] "r"(depth)
      : "q0", "q1", "q2", "q3", "memory", "lr");
  return ChannelSums{a0, a1, a2, a3, 0, ws};
}

// out[offsets[k] + o] for rows k < kRows (1..4) and every output channel o < co:
// requantize(bias[o] + sum_i (x_k[i] + io) * filter[o, i]), i < depth. Only the kRows rows are
// computed (a block of fewer pixels, e.g. the last of a narrow output row, costs less); the
// vector's other lanes repeat row 0 and are not stored. The offsets (bytes from out) are per
// pixel: a block's pixels may straddle output rows, which a ring need not keep adjacent.
// kRight: every shift < 0 (the requantization without the left shift). kSmall: depth <= 16, the
// rows' one vector each loaded once for every channel. kTail: depth is not a multiple of 16 (a
// last, predicated step).
// kRows 5 (not kSmall): a fifth row x4 shares the filter loads (a row call's output row of five
// pixels, else a block of four and a block of one that reloads every filter row), its output at
// out_offsets[4], requantized four channels at a time.
}  // namespace

namespace conv_instances {

template <int kRows, bool kRight, bool kSmall, bool kTail>
void four_rows(const int8_t* x0, const int8_t* x1, const int8_t* x2, const int8_t* x3,
               const int8_t* x4, const int8_t* filter, int32_t depth, int32_t co, const int32_t* bias, int32_t io,
               const Quant& q_in, int8_t* out, const uint32_t* out_offsets) {
  const Quant q = q_in;  // a local copy: output stores (int8) could alias anything
  const mve_pred16_t store = vctp32q(static_cast<uint32_t>(kRows));
  const uint32x4_t offsets = vldrwq_u32(out_offsets);
  const int32_t full = kSmall ? 0 : depth & ~15;
  const int32_t tail = depth - full;
  const mve_pred16_t tail_pred = vctp8q(static_cast<uint32_t>(tail));
  // The clamp's bounds as vectors once, not per channel.
  const int32x4_t act_min = vdupq_n_s32(q.stage.act_min);
  const int32x4_t act_max = vdupq_n_s32(q.stage.act_max);
  const auto finish = [&](int32_t o, int32x4_t acc) {
    int32x4_t v = vaddq_n_s32(requantize_n<!kRight>(acc, q.multiplier[o], q.shift[o]),
                              q.stage.output_offset);
    v = vminq_s32(vmaxq_s32(v, act_min), act_max);
    if (kRows >= 4) {
      vstrbq_scatter_offset_s32(out + o, offsets, v);
    } else {
      vstrbq_scatter_offset_p_s32(out + o, offsets, v, store);
    }
  };
  const int8_t* w = filter;
  if (kSmall) {
    // Zeroed lanes add nothing to the sums.
    const int8x16_t v0 = vldrbq_z_s8(x0, tail_pred);
    const int8x16_t v1 = kRows > 1 ? vldrbq_z_s8(x1, tail_pred) : v0;
    const int8x16_t v2 = kRows > 2 ? vldrbq_z_s8(x2, tail_pred) : v0;
    const int8x16_t v3 = kRows > 3 ? vldrbq_z_s8(x3, tail_pred) : v0;
    for (int32_t o = 0; o < co; ++o, w += depth) {
      const int8x16_t wv = vldrbq_z_s8(w, tail_pred);
      const int32_t base = (bias != nullptr ? bias[o] : 0) + io * vaddvq_s8(wv);
      const int32_t a0 = vmladavq_s8(v0, wv);
      const int32_t a1 = kRows > 1 ? vmladavq_s8(v1, wv) : a0;
      const int32_t a2 = kRows > 2 ? vmladavq_s8(v2, wv) : a0;
      const int32_t a3 = kRows > 3 ? vmladavq_s8(v3, wv) : a0;
      finish(o, sums(a0, a1, a2, a3, base));
    }
    return;
  }
  // depth > 16 here: the first step of 16 starts the sums (no zeroing), the rest accumulate.
  const int32_t more = (full >> 4) - 1;
  if (kRows <= 4) {
    for (int32_t o = 0; o < co; ++o, w += depth) {
      const ChannelSums c =
          kRows == 4 ? four_channel_sums(x0, x1, x2, x3, w, depth)
                     : channel_sums<kRows, kTail, const int8_t*>(x0, x1, x2, x3, x4, w, more,
                                                                 tail_pred);
      const int32_t base = (bias != nullptr ? bias[o] : 0) + io * c.ws;
      finish(o, sums(c.a0, kRows > 1 ? c.a1 : c.a0, kRows > 2 ? c.a2 : c.a0,
                     kRows > 3 ? c.a3 : c.a0, base));
    }
    return;
  }
  // kRows 5: the fifth row's sums of four channels (adjacent in the output) requantized as one
  // vector, not one per channel; the channels past the last four one by one.
  const auto channel = [&](int32_t o, const int8_t* row) {
    const ChannelSums c = channel_sums<kRows, kTail, const int8_t* const&>(x0, x1, x2, x3, x4, row,
                                                                          more, tail_pred);
    const int32_t base = (bias != nullptr ? bias[o] : 0) + io * c.ws;
    finish(o, sums(c.a0, c.a1, c.a2, c.a3, base));
    return c.a4 + base;
  };
  int32_t o = 0;
  for (; o + 4 <= co; o += 4, w += 4 * depth) {
    int32x4_t f = vdupq_n_s32(channel(o, w));
    f = vsetq_lane_s32(channel(o + 1, w + depth), f, 1);
    f = vsetq_lane_s32(channel(o + 2, w + 2 * depth), f, 2);
    f = vsetq_lane_s32(channel(o + 3, w + 3 * depth), f, 3);
    vstrbq_s32(out + out_offsets[4] + o, q.stage.apply(f, vldrwq_s32(q.multiplier + o),
                                                       split_shifts(vldrwq_s32(q.shift + o))));
  }
  for (; o < co; ++o, w += depth) {
    const int32x4_t v =
        q.stage.apply_n<!kRight>(vdupq_n_s32(channel(o, w)), q.multiplier[o], q.shift[o]);
    out[out_offsets[4] + static_cast<uint32_t>(o)] = static_cast<int8_t>(vgetq_lane_s32(v, 0));
  }
}

}  // namespace conv_instances

namespace {

// four_rows with its specializations chosen (rows: 1..4, or 5 when depth > 16).
void rows_block(const int8_t* x0, const int8_t* x1, const int8_t* x2, const int8_t* x3,
                const int8_t* x4, int32_t rows, const int8_t* filter, int32_t depth, int32_t co,
                const int32_t* bias, int32_t io, const Quant& q, bool right, int8_t* out,
                const uint32_t* out_offsets) {
  const int instance = four_rows_instance(rows, right, depth <= 16, (depth & 15) != 0);
  kConvInstances.four_rows[instance](x0, x1, x2, x3, x4, filter, depth, co, bias, io, q, out,
                                     out_offsets);
}

// Whether every channel's shift is negative (requantize_n<false> applies).
// (Four at a time: row calls ask it on every call.)
bool right_shifts_only(const int32_t* shift, int32_t count) {
  int32x4_t most = vdupq_n_s32(-1);
  int32_t i = 0;
  for (; i + 4 <= count; i += 4) most = vmaxq_s32(most, vldrwq_s32(shift + i));
  for (; i < count; ++i) {
    if (shift[i] >= 0) return false;
  }
  return vmaxvq_s32(INT32_MIN, most) < 0;
}

// Up to four output pixels in raster order: their (y, x) and first output bytes from the output
// rows' base (a block may straddle output rows, which a ring need not keep adjacent). Lanes past
// `count` repeat the last pixel. one_row: four pixels (y[0], x[0] + k) of one row, the rest of
// y and x not set (the common case, without the per-pixel bookkeeping); or five (count 5).
struct Block {
  int32_t count;
  bool one_row;
  int32_t y[4];
  int32_t x[4];
  uint32_t out[5];
  int32_t x_of(int32_t k) const { return one_row ? x[0] + k : x[k]; }
  int32_t y_of(int32_t k) const { return one_row ? y[0] : y[k]; }
};

// Output pixels [p_begin, p_end) of one image (p = y * output_w + x) in blocks of four, each
// handed to run(block); an output row's place is looked up once (one modulo for a ring).
// five: the last five pixels, when inside one row, are one block (only row calls: the whole
// tensor's blocks, which its overlap rules follow, stay those of four).
template <typename Run>
inline void for_blocks(const ConvShape& s, const internal::OutputRows& out, int32_t p_begin,
                       int32_t p_end, bool five, const Run& run) {
  if (p_begin >= p_end) return;
  const int32_t ow = s.output_w;
  const int32_t co = s.output_c;
  int32_t y = p_begin / ow;
  int32_t x = p_begin - y * ow;
  uint32_t row = static_cast<uint32_t>(out.row(y) - out.data);
  Block b;
  for (int32_t p = p_begin; p < p_end; p += 4) {
    if (five && p_end - p == 5 && x + 5 <= ow) {
      b.count = 5;
      b.one_row = true;
      b.y[0] = y;
      b.x[0] = x;
      for (int32_t k = 0; k < 5; ++k) b.out[k] = row + static_cast<uint32_t>((x + k) * co);
      run(b);
      return;
    }
    b.count = internal::min_i32(4, p_end - p);
    if (b.count == 4 && x + 4 <= ow) {
      // Four pixels inside the row (the common case).
      b.one_row = true;
      b.y[0] = y;
      b.x[0] = x;
      for (int32_t k = 0; k < 4; ++k) b.out[k] = row + static_cast<uint32_t>((x + k) * co);
      x += 4;
      run(b);
      if (x == ow) {
        x = 0;
        ++y;
        row = static_cast<uint32_t>(out.row(y) - out.data);
      }
      continue;
    }
    b.one_row = false;
    for (int32_t k = 0; k < 4; ++k) {
      if (k >= b.count) {
        b.y[k] = b.y[k - 1];
        b.x[k] = b.x[k - 1];
        b.out[k] = b.out[k - 1];
        continue;
      }
      b.y[k] = y;
      b.x[k] = x;
      b.out[k] = row + static_cast<uint32_t>(x * co);
      if (++x == ow) {
        x = 0;
        ++y;
        row = static_cast<uint32_t>(out.row(y) - out.data);
      }
    }
    run(b);
  }
}

// 1x1 without padding: output pixel (y, x) reads input pixel (y * stride_h, x * stride_w).
// rows_call: a row call (blocks of five: for_blocks; four_rows has them for depth > 16).
void conv_pointwise(const ConvShape& s, const InputRows& in, const int8_t* filter,
                    const int32_t* bias, const internal::OutputRows& out, int32_t p_begin,
                    int32_t p_end, int32_t io, const Quant& q, bool right, bool rows_call) {
  const int32_t ci = s.input_c;
  const int32_t co = s.output_c;
  const ptrdiff_t step = static_cast<ptrdiff_t>(s.stride_w) * ci;
  for_blocks(s, out, p_begin, p_end, rows_call && ci > 16, [&](const Block& b) {
    const int8_t* x[5];
    if (b.one_row || b.y[0] == b.y[3]) {  // one input row
      const int8_t* row = in.row(b.y[0] * s.stride_h);
      for (int32_t k = 0; k < 4; ++k) x[k] = row + b.x_of(k) * step;
      x[4] = b.count == 5 ? x[3] + step : x[3];
    } else {
      for (int32_t k = 0; k < 4; ++k) x[k] = in.row(b.y[k] * s.stride_h) + b.x[k] * step;
      x[4] = x[3];
    }
    rows_block(x[0], x[1], x[2], x[3], x[4], b.count, filter, ci, co, bias, io, q, right,
               out.data, b.out);
  });
}

// The output channels [g * per_group, (g + 1) * per_group) of group g: its filter rows, bias and
// quantization.
struct Group {
  const int8_t* filter;
  const int32_t* bias;
  Quant q;
};

inline Group group_of(const ConvShape& s, int32_t g, const int8_t* filter, const int32_t* bias,
                      const Quant& q) {
  const int32_t per_group = s.output_c / (s.input_c / s.filter_c);
  const ptrdiff_t first = static_cast<ptrdiff_t>(g) * per_group;
  const ptrdiff_t depth = static_cast<ptrdiff_t>(s.filter_h) * s.filter_w * s.filter_c;
  return Group{filter + first * depth, bias != nullptr ? bias + first : nullptr,
               Quant{q.multiplier + first, q.shift + first, q.stage}};
}

// The input rows of output row y's window, looked up when y changes (not per pixel or tap):
// filter rows [ky_begin, ky_end) are inside the input, filter row ky at row[ky]. Needs
// filter_h <= kMaxRowWindowRows (conv_handles).
struct WindowRows {
  int32_t y;
  int32_t ky_begin;
  int32_t ky_end;
  const int8_t* row[kMaxRowWindowRows];
};

inline const WindowRows& window_rows(const ConvShape& s, const InputRows& in, int32_t y,
                                     WindowRows& w) {
  if (w.y != y) {
    w.y = y;
    const int32_t iy0 = y * s.stride_h - s.pad_h;
    w.ky_begin = internal::first_inside(iy0, s.dilation_h, s.filter_h);
    w.ky_end = internal::end_inside(iy0, s.dilation_h, s.filter_h, s.input_h);
    for (int32_t ky = w.ky_begin; ky < w.ky_end; ++ky) w.row[ky] = in.row(iy0 + ky * s.dilation_h);
  }
  return w;
}

// A column row by row: the filter rows inside the input from copy_row(input row + c0, col row),
// the others the zero point.
// kGrouped: c0 is a group's first channel, a column row is filter_w * filter_c bytes.
template <bool kGrouped, typename CopyRow>
inline void gather(const ConvShape& s, const WindowRows& w, int32_t c0, int8x16_t pad, int8_t* col,
                   const CopyRow& copy_row) {
  const int32_t row_len = s.filter_w * (kGrouped ? s.filter_c : s.input_c);
  int32_t ky = 0;
  for (; ky < w.ky_begin; ++ky, col += row_len) fill_bytes(col, row_len, pad);
  for (; ky < w.ky_end; ++ky, col += row_len) copy_row(w.row[ky] + c0, col);
  for (; ky < s.filter_h; ++ky, col += row_len) fill_bytes(col, row_len, pad);
}

// A pixel whose taps are inside the input in x, without dilation in x: each filter row is one
// run of bytes (kGrouped: one run of filter_c bytes per tap).
template <bool kGrouped>
void im2col_whole(const ConvShape& s, const WindowRows& w, int32_t c0, int32_t ix0, int8x16_t pad,
                  int8_t* col) {
  const ptrdiff_t start = static_cast<ptrdiff_t>(ix0) * s.input_c;
  if (kGrouped) {
    const int32_t fc = s.filter_c;
    if (fc <= 16) {
      // A tap's channels of the group in one predicated load and store.
      const mve_pred16_t p = vctp8q(static_cast<uint32_t>(fc));
      gather<kGrouped>(s, w, c0, pad, col, [&](const int8_t* row, int8_t* dst) {
        const int8_t* src = row + start;
        for (int32_t kx = 0; kx < s.filter_w; ++kx, src += s.input_c, dst += fc) {
          vstrbq_p_s8(dst, vldrbq_z_s8(src, p), p);
        }
      });
      return;
    }
    gather<kGrouped>(s, w, c0, pad, col, [&](const int8_t* row, int8_t* dst) {
      for (int32_t kx = 0; kx < s.filter_w; ++kx) {
        copy_bytes(row + start + static_cast<ptrdiff_t>(kx) * s.input_c, dst + kx * fc, fc);
      }
    });
    return;
  }
  const int32_t row_len = s.filter_w * s.input_c;
  gather<kGrouped>(s, w, c0, pad, col,
                   [&](const int8_t* row, int8_t* dst) { copy_bytes(row + start, dst, row_len); });
}

// Any other pixel: the taps [kx_begin, kx_end) inside, zero points before and after them. Input
// pixels are input_c bytes apart, the column's taps filter_c (fewer when grouped).
template <bool kGrouped>
__attribute__((noinline)) void im2col_border(const ConvShape& s, const WindowRows& rows,
                                             int32_t c0, int32_t x, int8x16_t pad, int8_t* col) {
  const int32_t c = s.input_c;
  const int32_t fc = kGrouped ? s.filter_c : c;
  const int32_t row_len = s.filter_w * fc;
  internal::PixelWindow w;
  internal::window_columns(s, x, w);
  gather<kGrouped>(s, rows, c0, pad, col, [&](const int8_t* row, int8_t* dst) {
    if (w.kx_begin >= w.kx_end) {
      fill_bytes(dst, row_len, pad);
      return;
    }
    fill_bytes(dst, w.kx_begin * fc, pad);
    if (s.dilation_w == 1 && !kGrouped) {
      copy_bytes(row + static_cast<ptrdiff_t>(w.ix0 + w.kx_begin) * c, dst + w.kx_begin * c,
                 (w.kx_end - w.kx_begin) * c);
    } else {
      for (int32_t kx = w.kx_begin; kx < w.kx_end; ++kx) {
        copy_bytes(row + static_cast<ptrdiff_t>(w.ix0 + kx * s.dilation_w) * c, dst + kx * fc, fc);
      }
    }
    fill_bytes(dst + w.kx_end * fc, row_len - w.kx_end * fc, pad);
  });
}

// The column of output pixel (y, x), its window's rows in w: the window's x, the zero point for
// padding; grouped, the channels [c0, c0 + filter_c) of each tap.
template <bool kGrouped>
inline void im2col(const ConvShape& s, const WindowRows& w, int32_t x, int8x16_t pad, int8_t* col,
                   int32_t c0 = 0) {
  const int32_t ix0 = x * s.stride_w - s.pad_w;
  if (s.dilation_w == 1 && ix0 >= 0 && ix0 + s.filter_w <= s.input_w) {
    im2col_whole<kGrouped>(s, w, c0, ix0, pad, col);
  } else {
    im2col_border<kGrouped>(s, w, c0, x, pad, col);
  }
}

// The rows' windows of a call: two, so that a block straddling two output rows (and, grouped,
// revisiting the first for each group) finds both without a new lookup.
struct Windows {
  WindowRows w[2];
  Windows() {
    w[0].y = -1;
    w[1].y = -1;
  }
  const WindowRows& of(const ConvShape& s, const InputRows& in, int32_t y) {
    return window_rows(s, in, y, w[y & 1]);
  }
};

// im2col: for each block of four pixels, their four columns, then every output channel.
// (Inlined into conv_pixels, its one caller: gcc's own choice there cost the whole tensor's
// convolutions about 0.4 % once conv_pixels also called conv_im2col_last_five.)
__attribute__((always_inline)) inline void conv_im2col(const ConvShape& s, const InputRows& in,
                                                       const int8_t* filter, const int32_t* bias,
                                                       const internal::OutputRows& out,
                                                       int32_t p_begin, int32_t p_end, int32_t io,
                                                       const Quant& q, bool right, int8_t* cols) {
  const int32_t n = s.filter_h * s.filter_w * s.filter_c;
  const int32_t co = s.output_c;
  // The zero point: x + io = 0 in the padding. |io| <= 128 for int8 inputs' zero points.
  const int8x16_t pad = vdupq_n_s8(static_cast<int8_t>(-io));
  Windows windows;
  for_blocks(s, out, p_begin, p_end, false, [&](const Block& b) {
    if (b.one_row) {  // one output row: one window lookup
      const WindowRows& w = windows.of(s, in, b.y[0]);
      for (int32_t k = 0; k < 4; ++k) {
        im2col<false>(s, w, b.x[0] + k, pad, cols + static_cast<ptrdiff_t>(k) * n);
      }
    } else if (b.y[0] == b.y[3]) {
      const WindowRows& w = windows.of(s, in, b.y[0]);
      for (int32_t k = 0; k < b.count; ++k) {
        im2col<false>(s, w, b.x[k], pad, cols + static_cast<ptrdiff_t>(k) * n);
      }
    } else {
      for (int32_t k = 0; k < b.count; ++k) {
        im2col<false>(s, windows.of(s, in, b.y[k]), b.x[k], pad,
                      cols + static_cast<ptrdiff_t>(k) * n);
      }
    }
    const auto col = [&](int32_t k) {
      return cols + static_cast<ptrdiff_t>(internal::min_i32(k, b.count - 1)) * n;
    };
    rows_block(col(0), col(1), col(2), col(3), col(3), b.count, filter, n, co, bias, io, q, right,
               out.data, b.out);
  });
}

// The last five pixels of output row y as one block (a row call's row of 4k + 1 pixels, which
// would otherwise end in a lone pixel that reloads every filter row for one column; cols holds
// five columns, conv_five_columns). Apart from conv_im2col, whose code stays as without it.
__attribute__((noinline)) void conv_im2col_last_five(const ConvShape& s, const InputRows& in,
                                                     const int8_t* filter, const int32_t* bias,
                                                     const internal::OutputRows& out, int32_t y,
                                                     int32_t io, const Quant& q, bool right,
                                                     int8_t* cols) {
  const int32_t n = s.filter_h * s.filter_w * s.filter_c;
  const int32_t co = s.output_c;
  const int8x16_t pad = vdupq_n_s8(static_cast<int8_t>(-io));
  WindowRows w;
  w.y = -1;
  window_rows(s, in, y, w);
  const int32_t x0 = s.output_w - 5;
  const uint32_t row = static_cast<uint32_t>(out.row(y) - out.data);
  uint32_t offsets[5];
  for (int32_t k = 0; k < 5; ++k) {
    im2col<false>(s, w, x0 + k, pad, cols + static_cast<ptrdiff_t>(k) * n);
    offsets[k] = row + static_cast<uint32_t>((x0 + k) * co);
  }
  rows_block(cols, cols + n, cols + 2 * n, cols + 3 * n, cols + 4 * n, 5, filter, n, co, bias, io,
             q, right, out.data, offsets);
}

}  // namespace

namespace conv_instances {

// Grouped im2col: each block of four pixels group after group, the four columns of a group
// gathered before its outputs are written.
// (Called through kConvInstances: an image without grouped convolutions links none of it.)
void im2col_grouped(const ConvShape& s, const InputRows& in, const int8_t* filter,
                    const int32_t* bias, const internal::OutputRows& out, int32_t p_begin,
                    int32_t p_end, int32_t io, const Quant& q, bool right, int8_t* cols) {
  const int32_t n = s.filter_h * s.filter_w * s.filter_c;
  const int32_t co = s.output_c;
  const int32_t groups = s.input_c / s.filter_c;
  const int32_t per_group = co / groups;
  const int8x16_t pad = vdupq_n_s8(static_cast<int8_t>(-io));
  Windows windows;
  for_blocks(s, out, p_begin, p_end, false, [&](const Block& b) {
    const auto col = [&](int32_t k) {
      return cols + static_cast<ptrdiff_t>(internal::min_i32(k, b.count - 1)) * n;
    };
    for (int32_t g = 0; g < groups; ++g) {
      for (int32_t k = 0; k < b.count; ++k) {
        im2col<true>(s, windows.of(s, in, b.y_of(k)), b.x_of(k), pad,
                     cols + static_cast<ptrdiff_t>(k) * n, g * s.filter_c);
      }
      const Group gr = group_of(s, g, filter, bias, q);
      rows_block(col(0), col(1), col(2), col(3), col(3), b.count, gr.filter, n, per_group, gr.bias, io,
                 gr.q, right, out.data + static_cast<ptrdiff_t>(g) * per_group, b.out);
    }
  });
}

}  // namespace conv_instances

namespace {

// What conv2d and conv2d_rows share: the parameters of one call.
struct Call {
  ConvShape s;
  Quant q;
  int32_t io;
  bool right;
  size_t needed;
};

// Whether the mve paths take the call (else portable): the column's pad value needs the zero point
// in int8; shapes the table did not pick and anything odd go to the reference.
bool mve_takes(const ConvParams& params, Scratch scratch, size_t needed) {
  const ConvShape& s = params.shape;
  return s.stride_h > 0 && s.stride_w > 0 && s.dilation_h > 0 && s.dilation_w > 0 &&
         s.filter_c > 0 && conv_handles(s) && params.input_offset >= -127 &&
         params.input_offset <= 128 && scratch.size >= needed &&
         (needed == 0 || scratch.data != nullptr);
}

// Output pixels [p_begin, p_end) of one image on the path of its shape. (Out of line: one copy
// for conv2d and conv2d_rows.)
__attribute__((noinline)) void conv_pixels(const Call& c, const InputRows& in, const int8_t* filter, const int32_t* bias,
                 const internal::OutputRows& out, int32_t p_begin, int32_t p_end, int8_t* cols,
                 bool rows_call) {
  // (A grouped convolution is never pointwise: portable's test, which sizes the scratch.)
  if (c.needed == 0) {
    conv_pointwise(c.s, in, filter, bias, out, p_begin, p_end, c.io, c.q, c.right, rows_call);
  } else if (c.s.filter_c != c.s.input_c) {
    kConvInstances.grouped(c.s, in, filter, bias, out, p_begin, p_end, c.io, c.q, c.right,
                           cols);
  } else {
    // A row call whose rows end in five pixels: row by row (its pixels are whole rows), blocks
    // of four, then the last five.
    const bool five = rows_call && conv_five_columns(c.s);
    const int32_t step = five ? c.s.output_w : p_end - p_begin;
    for (int32_t p = p_begin; p < p_end; p += step) {
      conv_im2col(c.s, in, filter, bias, out, p, p + step - (five ? 5 : 0), c.io, c.q, c.right,
                  cols);
      if (five) {
        conv_im2col_last_five(c.s, in, filter, bias, out, p / step, c.io, c.q, c.right, cols);
      }
    }
  }
}

Call call_of(const ConvParams& params, size_t needed) {
  const ConvShape& s = params.shape;
  const Quant q{params.output_multiplier, params.output_shift,
                make_output_stage(params.output_offset, params.act_min, params.act_max)};
  const bool right = params.right_shifts_only != 0 || right_shifts_only(q.shift, s.output_c);
  return Call{s, q, params.input_offset, right, needed};
}

}  // namespace

// The whole tensor: each image's rows [0, output_h), its whole map as the rows (and a pointwise
// convolution run backward in its chunks of pixels).
void conv2d(const ConvParams& params, const int8_t* input, const int8_t* filter, const int32_t* bias,
            int8_t* output, Scratch scratch) {
  if (!conv2d_no_fallback(params, input, filter, bias, output, scratch)) {
    portable_conv2d(params, input, filter, bias, output, scratch);
  }
}

bool conv2d_no_fallback(const ConvParams& params, const int8_t* input, const int8_t* filter,
                        const int32_t* bias, int8_t* output, Scratch scratch) {
  const size_t needed = conv_scratch_bytes(params.shape);
  if (!mve_takes(params, scratch, needed)) return false;
  const Call c = call_of(params, needed);  // a local copy: output stores (int8) could alias params
  const ConvShape& s = c.s;
  const int32_t pixels = s.output_h * s.output_w;
  const ptrdiff_t in_row = static_cast<ptrdiff_t>(s.input_w) * s.input_c;
  const ptrdiff_t out_row = static_cast<ptrdiff_t>(s.output_w) * s.output_c;
  for (int32_t b = 0; b < s.batches; ++b) {
    const InputRows in{input + b * s.input_h * in_row, in_row, 0};
    const internal::OutputRows out{output + b * s.output_h * out_row, out_row, 0};
    const internal::PixelChunks chunks{pixels, params.backward_chunk, params.backward_split};
    for (int32_t p = chunks.first(); p >= 0; p = chunks.before(p)) {
      conv_pixels(c, in, filter, bias, out, p, chunks.end(p), scratch.data, false);
    }
  }
  return true;
}

void conv2d_rows(const ConvParams& params, const int8_t* input, RowRing input_ring,
                 const int8_t* filter, const int32_t* bias, int8_t* output, RowRing output_ring,
                 int32_t y_begin, int32_t y_end, Scratch scratch) {
  if (!conv2d_rows_no_fallback(params, input, input_ring, filter, bias, output, output_ring,
                               y_begin, y_end, scratch)) {
    portable_conv2d_rows(params, input, input_ring, filter, bias, output, output_ring, y_begin,
                         y_end, scratch);
  }
}

bool conv2d_rows_no_fallback(const ConvParams& params, const int8_t* input, RowRing input_ring,
                            const int8_t* filter, const int32_t* bias, int8_t* output,
                            RowRing output_ring, int32_t y_begin, int32_t y_end, Scratch scratch) {
  const size_t needed = conv_scratch_bytes(params.shape);
  if (!mve_takes(params, scratch, needed)) return false;
  const Call c = call_of(params, needed);  // a local copy: output stores (int8) could alias params
  const ConvShape& s = c.s;
  // Where portable refuses (mve_takes covered the rest of its checks).
  if (!internal::row_call_ok(s.batches, s.input_h, s.output_h, s.filter_h, s.stride_h, s.pad_h,
                             s.dilation_h, input_ring, output_ring, y_begin, y_end)) {
    return true;
  }
  const InputRows in{input, static_cast<ptrdiff_t>(s.input_w) * s.input_c, input_ring.rows};
  const internal::OutputRows out{output, static_cast<ptrdiff_t>(s.output_w) * s.output_c,
                                 output_ring.rows};
  conv_pixels(c, in, filter, bias, out, y_begin * s.output_w, y_end * s.output_w, scratch.data,
              true);
  return true;
}

// Every instance, for the tables to choose from (instance_tables.cc).
namespace conv_instances {
#define MOTE_MVE_FOUR_ROWS(r, right, small, tail)                                             \
  template void four_rows<r, right, small, tail>(                                            \
      const int8_t*, const int8_t*, const int8_t*, const int8_t*, const int8_t*, const int8_t*, \
      int32_t, int32_t, const int32_t*, int32_t, const Quant&, int8_t*, const uint32_t*);
#define MOTE_MVE_FOUR_ROWS_OF(r)                                                                \
  MOTE_MVE_FOUR_ROWS(r, false, false, false)                                                  \
  MOTE_MVE_FOUR_ROWS(r, false, false, true)                                                   \
  MOTE_MVE_FOUR_ROWS(r, false, true, false)                                                   \
  MOTE_MVE_FOUR_ROWS(r, false, true, true)                                                    \
  MOTE_MVE_FOUR_ROWS(r, true, false, false)                                                   \
  MOTE_MVE_FOUR_ROWS(r, true, false, true)                                                    \
  MOTE_MVE_FOUR_ROWS(r, true, true, false)                                                    \
  MOTE_MVE_FOUR_ROWS(r, true, true, true)
MOTE_MVE_FOUR_ROWS_OF(1)
MOTE_MVE_FOUR_ROWS_OF(2)
MOTE_MVE_FOUR_ROWS_OF(3)
MOTE_MVE_FOUR_ROWS_OF(4)
MOTE_MVE_FOUR_ROWS(5, false, false, false)
MOTE_MVE_FOUR_ROWS(5, false, false, true)
MOTE_MVE_FOUR_ROWS(5, true, false, false)
MOTE_MVE_FOUR_ROWS(5, true, false, true)
#undef MOTE_MVE_FOUR_ROWS_OF
#undef MOTE_MVE_FOUR_ROWS
}  // namespace conv_instances

}  // namespace mve
}  // namespace kernels
}  // namespace mote
