// DEPTHWISE_CONV_2D's kernel variants: which one runs, what it needs, and the depthwise_conv2d
// entry that calls it (as conv.cc for CONV_2D).
#include "mote/kernels/depthwise_conv.h"

#include <string.h>

#include "dsp/kernels.h"
#if defined(MOTE_KERNELS_WITH_DSP)
#include "dsp/requantize.h"
#endif
#include "mve/kernels.h"
#if defined(MOTE_KERNELS_WITH_MVE)
#include "mve/instance_tables.h"
#endif
#include "portable/conv_internal.h"
#include "variant_table.h"

namespace mote {
namespace kernels {
namespace {

using DepthwiseKernel = void (*)(const DepthwiseConvParams&, const int8_t*, const int8_t*,
                                 const int32_t*, int8_t*, Scratch);
using DepthwiseVariant = internal::KernelVariant<DepthwiseShape>;

// The portable kernel needs no scratch.
size_t portable_depthwise_conv_scratch_bytes(const DepthwiseShape&) { return 0; }

constexpr DepthwiseVariant kDepthwiseVariants[] = {
    {Variant::kMve, &mve::depthwise_conv_handles, &mve::depthwise_conv_scratch_bytes,
     MOTE_MVE_BUILT, &mve::depthwise_conv_overlap},
    {Variant::kDsp, &dsp::depthwise_conv_handles, &dsp::depthwise_conv_scratch_bytes,
     MOTE_DSP_BUILT, &dsp::depthwise_conv_overlap},
    {Variant::kPortable, nullptr, &portable_depthwise_conv_scratch_bytes, true,
     &internal::portable_depthwise_conv_overlap},
};
constexpr auto kDepthwiseChoices = internal::choices_of(kDepthwiseVariants);
constexpr DepthwiseKernel kDepthwiseKernels[] = {MOTE_MVE_KERNEL(mve::depthwise_conv2d),
                                                 MOTE_DSP_KERNEL(dsp::depthwise_conv2d),
                                                 &portable_depthwise_conv2d};
static_assert(internal::kernels_match(kDepthwiseVariants, kDepthwiseKernels));
using DepthwiseExtensionKernel = bool (*)(const DepthwiseConvParams&, const int8_t*,
                                          const int8_t*, const int32_t*, int8_t*, Scratch);
constexpr DepthwiseExtensionKernel kDepthwiseExtensionKernels[] = {
    MOTE_MVE_KERNEL(mve::depthwise_conv2d_no_fallback),
    MOTE_DSP_KERNEL(dsp::depthwise_conv2d_no_fallback), nullptr};
static_assert(internal::extension_kernels_match(kDepthwiseVariants, kDepthwiseExtensionKernels));

}  // namespace

MOTE_KERNEL_VARIANT_QUERIES(depthwise_conv, const DepthwiseShape&, kDepthwiseVariants)
MOTE_KERNEL_OVERLAP_QUERIES(depthwise_conv, const DepthwiseShape&, kDepthwiseVariants)

void depthwise_conv2d(const DepthwiseConvParams& params, const int8_t* input, const int8_t* filter,
                      const int32_t* bias, int8_t* output, Scratch scratch) {
  internal::built_kernel(kDepthwiseChoices, kDepthwiseKernels, params.shape)(
      params, input, filter, bias, output, scratch);
}

void depthwise_conv2d_extension(const DepthwiseConvParams& params, const int8_t* input,
                                const int8_t* filter, const int32_t* bias, int8_t* output,
                                Scratch scratch) {
  internal::run_extension<&portable_depthwise_conv2d>(kDepthwiseChoices,
                                                      kDepthwiseExtensionKernels, params.shape,
                                                      params, input, filter, bias, output, scratch);
}

bool depthwise_conv_extension_takes(const DepthwiseShape& shape) {
  return internal::extension_takes(kDepthwiseChoices, shape);
}

bool depthwise_conv_extension_linked(const DepthwiseShape& shape, bool rows) {
#if defined(MOTE_KERNELS_WITH_MVE)
  return mve::instances_linked(mve::depthwise_instances_used(shape, rows));
#else
  (void)shape;
  (void)rows;
  return true;
#endif
}

void depthwise_conv2d_one_input(const DepthwiseConvParams& params, const int8_t* input,
                                const int8_t* filter, const int32_t* bias, int8_t* output,
                                Scratch scratch) {
#if defined(MOTE_KERNELS_WITH_MVE) && defined(MOTE_KERNELS_WITH_DSP)
  const bool dsp = internal::built_choice(kDepthwiseChoices, params.shape) == Variant::kDsp;
  if (dsp ? dsp::depthwise_conv2d_one_input(params, input, filter, bias, output, scratch)
          : mve::depthwise_conv2d_one_input(params, input, filter, bias, output, scratch)) {
    return;
  }
#elif defined(MOTE_KERNELS_WITH_MVE)
  if (mve::depthwise_conv2d_one_input(params, input, filter, bias, output, scratch)) return;
#elif defined(MOTE_KERNELS_WITH_DSP)
  if (dsp::depthwise_conv2d_one_input(params, input, filter, bias, output, scratch)) return;
#endif
  depthwise_conv2d_extension(params, input, filter, bias, output, scratch);
}

// Rows (mote/kernels/rows.h): the build's extension row kernel, which tests its table line's
// handles itself (no walk of the table at every row call of a stage; a build with both extensions
// asks the table): with its portable fallback (depthwise_conv2d_rows), or alone
// (depthwise_conv2d_rows_extension, for operators it takes: each a direct call, the row calls'
// cost).
void depthwise_conv2d_rows(const DepthwiseConvParams& params, const int8_t* input,
                           RowRing input_ring, const int8_t* filter, const int32_t* bias,
                           int8_t* output, RowRing output_ring, int32_t y_begin, int32_t y_end,
                           Scratch scratch) {
#if defined(MOTE_KERNELS_WITH_MVE) && defined(MOTE_KERNELS_WITH_DSP)
  if (internal::built_choice(kDepthwiseChoices, params.shape) == Variant::kDsp) {
    dsp::depthwise_conv2d_rows(params, input, input_ring, filter, bias, output, output_ring,
                               y_begin, y_end, scratch);
    return;
  }
#endif
#if defined(MOTE_KERNELS_WITH_MVE)
  mve::depthwise_conv2d_rows(params, input, input_ring, filter, bias, output, output_ring, y_begin,
                             y_end, scratch);
#elif defined(MOTE_KERNELS_WITH_DSP)
  dsp::depthwise_conv2d_rows(params, input, input_ring, filter, bias, output, output_ring, y_begin,
                             y_end, scratch);
#else
  portable_depthwise_conv2d_rows(params, input, input_ring, filter, bias, output, output_ring,
                                 y_begin, y_end, scratch);
#endif
}

void depthwise_conv2d_rows_extension(const DepthwiseConvParams& params, const int8_t* input,
                                     RowRing input_ring, const int8_t* filter, const int32_t* bias,
                                     int8_t* output, RowRing output_ring, int32_t y_begin,
                                     int32_t y_end, Scratch scratch) {
#if defined(MOTE_KERNELS_WITH_MVE) && defined(MOTE_KERNELS_WITH_DSP)
  if (internal::built_choice(kDepthwiseChoices, params.shape) == Variant::kDsp) {
    dsp::depthwise_conv2d_rows_no_fallback(params, input, input_ring, filter, bias, output,
                                           output_ring, y_begin, y_end, scratch);
    return;
  }
#endif
#if defined(MOTE_KERNELS_WITH_MVE)
  mve::depthwise_conv2d_rows_no_fallback(params, input, input_ring, filter, bias, output,
                                         output_ring, y_begin, y_end, scratch);
#elif defined(MOTE_KERNELS_WITH_DSP)
  dsp::depthwise_conv2d_rows_no_fallback(params, input, input_ring, filter, bias, output,
                                         output_ring, y_begin, y_end, scratch);
#else
  portable_depthwise_conv2d_rows(params, input, input_ring, filter, bias, output, output_ring,
                                 y_begin, y_end, scratch);
#endif
}

bool depthwise_conv_runs_in_place(const DepthwiseShape& s) {
  return s.batches > 0 && s.input_h > 0 && s.input_w > 0 && s.input_c > 0 &&
         s.output_c == s.input_c && s.output_h > 0 && s.output_w > 0 && s.filter_h > 0 &&
         s.filter_w > 0 && s.stride_h > 0 && s.stride_w > 0 && s.dilation_h > 0 &&
         s.dilation_w > 0 && s.pad_h >= 0 && s.pad_w >= 0 &&
         int64_t{s.output_h} * s.output_w <= int64_t{s.input_h} * s.input_w;
}

namespace {

// The plane the in-place kernel copies a channel into: every row and column any window reads,
// from the top-left padding on, the input at (pad_h, pad_w) and the padding filled with the
// input's zero point (which adds nothing), so that no tap needs a bounds check.
struct Plane {
  int32_t h, w;
};
Plane padded_plane(const DepthwiseShape& s) {
  return {(s.output_h - 1) * s.stride_h + (s.filter_h - 1) * s.dilation_h + 1,
          (s.output_w - 1) * s.stride_w + (s.filter_w - 1) * s.dilation_w + 1};
}

// Filter taps held as int32 on the stack for windows up to this many taps (5x5); larger filters
// are read where they are.
constexpr int32_t kLocalTaps = 25;

}  // namespace

size_t depthwise_conv_in_place_scratch_bytes(const DepthwiseShape& s) {
  if (!depthwise_conv_runs_in_place(s)) return 0;
  const Plane plane = padded_plane(s);
  return static_cast<size_t>(plane.h) * static_cast<size_t>(plane.w);
}

void depthwise_conv2d_in_place(const DepthwiseConvParams& params, const int8_t* input,
                               const int8_t* filter, const int32_t* bias, int8_t* output,
                               Scratch scratch) {
  const DepthwiseShape s = params.shape;  // a local copy: output stores (int8) could alias params
  const size_t bytes = depthwise_conv_in_place_scratch_bytes(s);
  const int32_t offset = params.input_offset, output_offset = params.output_offset;
  const int32_t zero_point = -offset;
  if (bytes == 0 || scratch.data == nullptr || scratch.size < bytes || zero_point < -128 ||
      zero_point > 127) {
    return;
  }
  const int32_t act_min = params.act_min < -128 ? -128 : params.act_min;
  const int32_t act_max = params.act_max > 127 ? 127 : params.act_max;
  const Plane plane = padded_plane(s);
  const int32_t channels = s.input_c;
  const int32_t taps = s.filter_h * s.filter_w;
  const bool local_taps = taps <= kLocalTaps;
  // A 3x3 window of dilation 1, the common case, gets its taps unrolled.
  const bool three = s.filter_h == 3 && s.filter_w == 3 && s.dilation_h == 1 && s.dilation_w == 1;
  // The input rows and columns that land inside the plane (valid padding may leave some out).
  const int32_t rows = s.input_h < plane.h - s.pad_h ? s.input_h : plane.h - s.pad_h;
  const int32_t cols = s.input_w < plane.w - s.pad_w ? s.input_w : plane.w - s.pad_w;
  int32_t w[kLocalTaps] = {};
  int8_t* copy = scratch.data;
  const ptrdiff_t in_image = static_cast<ptrdiff_t>(s.input_h) * s.input_w * channels;
  const ptrdiff_t out_image = static_cast<ptrdiff_t>(s.output_h) * s.output_w * channels;
  const ptrdiff_t row_step = static_cast<ptrdiff_t>(s.stride_h) * plane.w;
  for (int32_t b = 0; b < s.batches; ++b) {
    const int8_t* in = input + b * in_image;
    int8_t* out = output + b * out_image;
    for (int32_t c = 0; c < channels; ++c) {
      // Channel c of this image, read whole before any byte of output channel c is written.
      memset(copy, zero_point, bytes);
      for (int32_t y = 0; y < rows; ++y) {
        const int8_t* src = in + static_cast<ptrdiff_t>(y) * s.input_w * channels + c;
        int8_t* dst = copy + static_cast<ptrdiff_t>(y + s.pad_h) * plane.w + s.pad_w;
        // Stepped by pointer: indexed by x * channels, gcc unrolls it and spills the offsets.
#pragma GCC unroll 1
        for (int32_t x = 0; x < cols; ++x, src += channels) dst[x] = *src;
      }
      const int8_t* fc = filter + c;
      int32_t tap_sum = 0;
      for (int32_t t = 0; t < taps; ++t) {
        const int32_t tap = fc[static_cast<ptrdiff_t>(t) * channels];
        if (local_taps) w[t] = tap;
        tap_sum += tap;
      }
      // The offset's share is the same for every pixel (padding taps add zero_point + offset, 0).
      const int32_t base = internal::bias_or_zero(bias, c) + offset * tap_sum;
      const int32_t multiplier = params.output_multiplier[c], shift = params.output_shift[c];
      auto store = [&](int8_t* o, int32_t acc) {
        int32_t v = internal::requantize_fast(acc, multiplier, shift) + output_offset;
        v = v < act_min ? act_min : v;
        *o = static_cast<int8_t>(v > act_max ? act_max : v);
      };
      const int32_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6],
                    w7 = w[7], w8 = w[8];
      int8_t* o = out + c;
      const int8_t* row = copy;
      for (int32_t y = 0; y < s.output_h; ++y, row += row_step) {
        const int8_t* p = row;
#if defined(MOTE_KERNELS_WITH_DSP)
        if (three && s.stride_w == 1) {  // two outputs per step on the dsp instructions
          constexpr int32_t kChunk = 16;
          int32_t sums[kChunk];
          for (int32_t x = 0; x < s.output_w; x += kChunk, p += kChunk) {
            const int32_t n = s.output_w - x < kChunk ? s.output_w - x : kChunk;
            dsp::window3_row_sums(p, plane.w, n, w, base, sums);
            for (int32_t j = 0; j < n; ++j, o += channels) {
              // The dsp requantization (one 64-bit multiply-accumulate) takes m >= 0.
              if (multiplier < 0) {
                store(o, sums[j]);
                continue;
              }
              int32_t v = dsp::requantize(sums[j], multiplier, shift) + output_offset;
              v = v < act_min ? act_min : v;
              *o = static_cast<int8_t>(v > act_max ? act_max : v);
            }
          }
          continue;
        }
#endif
        if (three) {
          for (int32_t x = 0; x < s.output_w; ++x, o += channels, p += s.stride_w) {
            const int8_t* r1 = p + plane.w;
            const int8_t* r2 = r1 + plane.w;
            store(o, base + p[0] * w0 + p[1] * w1 + p[2] * w2 + r1[0] * w3 + r1[1] * w4 +
                         r1[2] * w5 + r2[0] * w6 + r2[1] * w7 + r2[2] * w8);
          }
          continue;
        }
        for (int32_t x = 0; x < s.output_w; ++x, o += channels, p += s.stride_w) {
          int32_t acc = base;
          for (int32_t ky = 0; ky < s.filter_h; ++ky) {
            const int8_t* r = p + static_cast<ptrdiff_t>(ky) * s.dilation_h * plane.w;
            for (int32_t kx = 0; kx < s.filter_w; ++kx) {
              const int32_t t = ky * s.filter_w + kx;
              const int32_t tap = local_taps ? w[t] : fc[static_cast<ptrdiff_t>(t) * channels];
              acc += r[kx * s.dilation_w] * tap;
            }
          }
          store(o, acc);
        }
      }
    }
  }
}

namespace {

// The 16x8 and int4 forms: their variants need no scratch.
size_t no_scratch(const DepthwiseShape&) { return 0; }

// The dsp and mve kernels sum a block's taps in int32, exact for 16x8 up to 511 taps: they take
// windows of at most 256 (and the geometries portable computes).
bool wide_handles(const DepthwiseShape& s) {
  return s.stride_h > 0 && s.stride_w > 0 && s.dilation_h > 0 && s.dilation_w > 0 &&
         s.input_c > 0 && s.output_c % s.input_c == 0 && s.filter_h > 0 && s.filter_w > 0 &&
         static_cast<int64_t>(s.filter_h) * s.filter_w <= 256;
}

constexpr DepthwiseVariant kDepthwiseWideVariants[] = {
    {Variant::kMve, &wide_handles, &no_scratch, MOTE_MVE_BUILT, nullptr},
    {Variant::kDsp, &wide_handles, &no_scratch, MOTE_DSP_BUILT, nullptr},
    {Variant::kPortable, nullptr, &no_scratch, true, nullptr},
};
constexpr auto kDepthwiseWideChoices = internal::choices_of(kDepthwiseWideVariants);
using Depthwise16x8 = void (*)(const DepthwiseConvParams&, const int16_t*, const int8_t*,
                               const int64_t*, int16_t*);
using DepthwiseInt4 = void (*)(const DepthwiseConvParams&, const int8_t*, const uint8_t*,
                               const int32_t*, int8_t*);
constexpr Depthwise16x8 kDepthwise16x8Kernels[] = {MOTE_MVE_KERNEL(mve::depthwise_conv2d_16x8),
                                                   MOTE_DSP_KERNEL(dsp::depthwise_conv2d_16x8),
                                                   &portable_depthwise_conv2d_16x8};
constexpr DepthwiseInt4 kDepthwiseInt4Kernels[] = {MOTE_MVE_KERNEL(mve::depthwise_conv2d_int4),
                                                   MOTE_DSP_KERNEL(dsp::depthwise_conv2d_int4),
                                                   &portable_depthwise_conv2d_int4};
static_assert(internal::kernels_match(kDepthwiseWideVariants, kDepthwise16x8Kernels));
static_assert(internal::kernels_match(kDepthwiseWideVariants, kDepthwiseInt4Kernels));

}  // namespace

MOTE_KERNEL_VARIANT_NAMES(depthwise_conv_16x8, const DepthwiseShape&, kDepthwiseWideVariants)
MOTE_KERNEL_VARIANT_NAMES(depthwise_conv_int4, const DepthwiseShape&, kDepthwiseWideVariants)

void depthwise_conv2d_16x8(const DepthwiseConvParams& params, const int16_t* input,
                           const int8_t* filter, const int64_t* bias, int16_t* output) {
  internal::built_kernel(kDepthwiseWideChoices, kDepthwise16x8Kernels, params.shape)(
      params, input, filter, bias, output);
}

void depthwise_conv2d_int4(const DepthwiseConvParams& params, const int8_t* input,
                           const uint8_t* filter, const int32_t* bias, int8_t* output) {
  internal::built_kernel(kDepthwiseWideChoices, kDepthwiseInt4Kernels, params.shape)(
      params, input, filter, bias, output);
}

}  // namespace kernels
}  // namespace mote
