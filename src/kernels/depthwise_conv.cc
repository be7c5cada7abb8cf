// DEPTHWISE_CONV_2D's kernel variants: which one runs, what it needs, and the depthwise_conv2d
// entry that calls it (as conv.cc for CONV_2D).
#include "mote/kernels/depthwise_conv.h"

#include "dsp/kernels.h"
#include "mve/kernels.h"
#include "portable/window.h"
#include "variant_table.h"

namespace mote {
namespace kernels {
namespace {

using DepthwiseKernel = void (*)(const DepthwiseConvParams&, const int8_t*, const int8_t*,
                                 const int32_t*, int8_t*, Scratch);
using DepthwiseVariant = internal::KernelVariant<DepthwiseShape, DepthwiseKernel>;

// The portable kernel needs no scratch.
size_t portable_depthwise_conv_scratch_bytes(const DepthwiseShape&) { return 0; }

constexpr DepthwiseVariant kDepthwiseVariants[] = {
    {Variant::kMve, &mve::depthwise_conv_handles, &mve::depthwise_conv_scratch_bytes,
     MOTE_MVE_KERNEL(mve::depthwise_conv2d), &mve::depthwise_conv_overlap},
    {Variant::kDsp, &dsp::depthwise_conv_handles, &dsp::depthwise_conv_scratch_bytes,
     MOTE_DSP_KERNEL(dsp::depthwise_conv2d), &dsp::depthwise_conv_overlap},
    {Variant::kPortable, nullptr, &portable_depthwise_conv_scratch_bytes, &portable_depthwise_conv2d,
     &internal::portable_depthwise_conv_overlap},
};

}  // namespace

MOTE_KERNEL_VARIANT_QUERIES(depthwise_conv, const DepthwiseShape&, kDepthwiseVariants)
MOTE_KERNEL_OVERLAP_QUERIES(depthwise_conv, const DepthwiseShape&, kDepthwiseVariants)

void depthwise_conv2d(const DepthwiseConvParams& params, const int8_t* input, const int8_t* filter,
                      const int32_t* bias, int8_t* output, Scratch scratch) {
  internal::built_variant(kDepthwiseVariants, params.shape)
      .kernel(params, input, filter, bias, output, scratch);
}

bool depthwise_conv_runs_in_place(const DepthwiseShape& s) {
  return s.batches > 0 && s.input_h > 0 && s.input_w > 0 && s.input_c > 0 &&
         s.output_c == s.input_c && s.output_h > 0 && s.output_w > 0 && s.filter_h > 0 &&
         s.filter_w > 0 && s.stride_h > 0 && s.stride_w > 0 && s.dilation_h > 0 &&
         s.dilation_w > 0 &&
         int64_t{s.output_h} * s.output_w <= int64_t{s.input_h} * s.input_w;
}

size_t depthwise_conv_in_place_scratch_bytes(const DepthwiseShape& s) {
  return depthwise_conv_runs_in_place(s) ? static_cast<size_t>(s.input_h) * s.input_w : 0;
}

namespace {

// Filter taps held as int16 on the stack for windows up to this many taps (5x5); larger filters
// are read where they are.
constexpr int32_t kLocalTaps = 25;

}  // namespace

void depthwise_conv2d_in_place(const DepthwiseConvParams& params, const int8_t* input,
                               const int8_t* filter, const int32_t* bias, int8_t* output,
                               Scratch scratch) {
  const DepthwiseShape s = params.shape;  // a local copy: output stores (int8) could alias params
  const size_t plane = depthwise_conv_in_place_scratch_bytes(s);
  if (plane == 0 || scratch.data == nullptr || scratch.size < plane) return;
  const internal::Requantizer rq = internal::make_requantizer(
      params.output_multiplier, params.output_shift, params.output_offset, params.act_min,
      params.act_max);
  const int32_t offset = params.input_offset;
  const int32_t c_count = s.input_c;
  const int32_t taps = s.filter_h * s.filter_w;
  const bool local_taps = taps <= kLocalTaps;
  int16_t w[kLocalTaps];
  int8_t* copy = scratch.data;
  const ptrdiff_t in_image = static_cast<ptrdiff_t>(s.input_h) * s.input_w * c_count;
  const ptrdiff_t out_image = static_cast<ptrdiff_t>(s.output_h) * s.output_w * c_count;
  internal::PixelWindow pw;
  for (int32_t b = 0; b < s.batches; ++b) {
    const int8_t* in = input + b * in_image;
    int8_t* out = output + b * out_image;
    for (int32_t c = 0; c < c_count; ++c) {
      // Channel c of this image, read whole before any byte of output channel c is written.
      for (size_t i = 0; i < plane; ++i) copy[i] = in[static_cast<ptrdiff_t>(i) * c_count + c];
      const int8_t* fc = filter + c;
      int32_t tap_sum = 0;
      if (local_taps) {
        for (int32_t t = 0; t < taps; ++t) {
          w[t] = fc[static_cast<ptrdiff_t>(t) * c_count];
          tap_sum += w[t];
        }
      }
      // A window wholly inside the input: the offset's share is the same for every pixel.
      const int32_t inside_base = internal::bias_or_zero(bias, c) + offset * tap_sum;
      int8_t* o = out + c;
      for (int32_t y = 0; y < s.output_h; ++y) {
        internal::window_rows(s, y, pw);
        const bool rows_inside = pw.ky_begin == 0 && pw.ky_end == s.filter_h;
        for (int32_t x = 0; x < s.output_w; ++x, o += c_count) {
          internal::window_columns(s, x, pw);
          int32_t acc;
          if (local_taps && rows_inside && pw.kx_begin == 0 && pw.kx_end == s.filter_w) {
            acc = inside_base;
            const int16_t* wt = w;
            for (int32_t ky = 0; ky < s.filter_h; ++ky) {
              const int8_t* row = copy + (pw.iy0 + ky * s.dilation_h) * s.input_w + pw.ix0;
              for (int32_t kx = 0; kx < s.filter_w; ++kx) acc += row[kx * s.dilation_w] * *wt++;
            }
          } else {
            acc = internal::bias_or_zero(bias, c);
            for (int32_t ky = pw.ky_begin; ky < pw.ky_end; ++ky) {
              const int8_t* row = copy + (pw.iy0 + ky * s.dilation_h) * s.input_w + pw.ix0;
              for (int32_t kx = pw.kx_begin; kx < pw.kx_end; ++kx) {
                const int32_t t = ky * s.filter_w + kx;
                const int32_t tap = local_taps ? w[t] : fc[static_cast<ptrdiff_t>(t) * c_count];
                acc += (row[kx * s.dilation_w] + offset) * tap;
              }
            }
          }
          *o = rq(acc, c);
        }
      }
    }
  }
}

}  // namespace kernels
}  // namespace mote
