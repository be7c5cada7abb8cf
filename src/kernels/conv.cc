// CONV_2D's kernel variants: which one runs, what it needs, and the conv2d entry that calls it.
// A variant folder adds one line above the portable kernel: handles, scratch size, whether it is
// built and overlap rule (null: its output never overlaps an input), and its kernel at the same
// place in kConvKernels.
#include "mote/kernels/conv.h"

#include "variant_table.h"
#include "wide_conv.h"

#include "dsp/kernels.h"
#include "mve/kernels.h"
#if defined(MOTE_KERNELS_WITH_MVE)
#include "mve/instance_tables.h"
#endif
#if defined(MOTE_KERNELS_WITH_DSP)
#include "dsp/instance_tables.h"
#endif
#if defined(MOTE_KERNELS_WITH_TESTING)
#include "testing/conv.h"
#endif

namespace mote {
namespace kernels {
namespace {

using ConvKernel = void (*)(const ConvParams&, const int8_t*, const int8_t*, const int32_t*,
                            int8_t*, Scratch);
using ConvVariant = internal::KernelVariant<ConvShape>;

constexpr ConvVariant kConvVariants[] = {
#if defined(MOTE_KERNELS_WITH_TESTING)
    // Only in a test library (its size function too): no extension ever plans for it.
    {Variant::kTesting, nullptr, &testing_variant::conv_scratch_bytes, true, nullptr},
#endif
    {Variant::kMve, &mve::conv_handles, &mve::conv_scratch_bytes, MOTE_MVE_BUILT,
     &mve::conv_overlap},
    {Variant::kDsp, &dsp::conv_handles, &dsp::conv_scratch_bytes, MOTE_DSP_BUILT,
     &dsp::conv_overlap},
    {Variant::kPortable, nullptr, &portable_conv_scratch_bytes, true,
     &internal::portable_conv_overlap},
};
constexpr auto kConvChoices = internal::choices_of(kConvVariants);
constexpr ConvKernel kConvKernels[] = {
#if defined(MOTE_KERNELS_WITH_TESTING)
    &testing_variant::conv2d,
#endif
    MOTE_MVE_KERNEL(mve::conv2d), MOTE_DSP_KERNEL(dsp::conv2d), &portable_conv2d};
static_assert(internal::kernels_match(kConvVariants, kConvKernels));
using ConvExtensionKernel = bool (*)(const ConvParams&, const int8_t*, const int8_t*,
                                     const int32_t*, int8_t*, Scratch);
constexpr ConvExtensionKernel kConvExtensionKernels[] = {
#if defined(MOTE_KERNELS_WITH_TESTING)
    [](const ConvParams& p, const int8_t* x, const int8_t* w, const int32_t* b, int8_t* y,
       Scratch scratch) {
      testing_variant::conv2d(p, x, w, b, y, scratch);
      return true;
    },
#endif
    MOTE_MVE_KERNEL(mve::conv2d_no_fallback), MOTE_DSP_KERNEL(dsp::conv2d_no_fallback), nullptr};
static_assert(internal::extension_kernels_match(kConvVariants, kConvExtensionKernels));

}  // namespace

MOTE_KERNEL_VARIANT_QUERIES(conv, const ConvShape&, kConvVariants)
MOTE_KERNEL_OVERLAP_QUERIES(conv, const ConvShape&, kConvVariants)

void conv2d(const ConvParams& params, const int8_t* input, const int8_t* filter, const int32_t* bias,
            int8_t* output, Scratch scratch) {
  internal::built_kernel(kConvChoices, kConvKernels, params.shape)(params, input, filter, bias,
                                                                    output, scratch);
}

void conv2d_extension(const ConvParams& params, const int8_t* input, const int8_t* filter,
                      const int32_t* bias, int8_t* output, Scratch scratch) {
  internal::run_extension<&portable_conv2d>(kConvChoices, kConvExtensionKernels, params.shape,
                                            params, input, filter, bias, output, scratch);
}

bool conv_extension_takes(const ConvShape& shape) {
  return internal::extension_takes(kConvChoices, shape);
}

bool conv_extension_linked(const ConvShape& shape, const int32_t* shifts) {
#if defined(MOTE_KERNELS_WITH_MVE)
  bool right = true;  // every shift negative
  for (int32_t k = 0; k < shape.output_c && right; ++k) right = shifts[k] < 0;
  if (!mve::instances_linked(mve::conv_instances_used(shape, right))) return false;
#endif
#if defined(MOTE_KERNELS_WITH_DSP)
  if (shape.filter_c != shape.input_c && dsp::kConvInstances.grouped == nullptr) return false;
#endif
  (void)shape;
  (void)shifts;
  return true;
}

// Rows (mote/kernels/rows.h): the build's extension row kernel, which tests its table line's
// handles itself (no walk of the table at every row call of a stage; a build with both extensions
// asks the table): with its portable fallback (conv2d_rows), or alone (conv2d_rows_extension, for
// operators it takes: each a direct call, the row calls' cost).
void conv2d_rows(const ConvParams& params, const int8_t* input, RowRing input_ring,
                 const int8_t* filter, const int32_t* bias, int8_t* output, RowRing output_ring,
                 int32_t y_begin, int32_t y_end, Scratch scratch) {
#if defined(MOTE_KERNELS_WITH_MVE) && defined(MOTE_KERNELS_WITH_DSP)
  if (internal::built_choice(kConvChoices, params.shape) == Variant::kDsp) {
    dsp::conv2d_rows(params, input, input_ring, filter, bias, output, output_ring, y_begin, y_end,
                     scratch);
    return;
  }
#endif
#if defined(MOTE_KERNELS_WITH_MVE)
  mve::conv2d_rows(params, input, input_ring, filter, bias, output, output_ring, y_begin, y_end,
                   scratch);
#elif defined(MOTE_KERNELS_WITH_DSP)
  dsp::conv2d_rows(params, input, input_ring, filter, bias, output, output_ring, y_begin, y_end,
                   scratch);
#else
  portable_conv2d_rows(params, input, input_ring, filter, bias, output, output_ring, y_begin, y_end,
                       scratch);
#endif
}

void conv2d_rows_extension(const ConvParams& params, const int8_t* input, RowRing input_ring,
                           const int8_t* filter, const int32_t* bias, int8_t* output,
                           RowRing output_ring, int32_t y_begin, int32_t y_end, Scratch scratch) {
#if defined(MOTE_KERNELS_WITH_MVE) && defined(MOTE_KERNELS_WITH_DSP)
  if (internal::built_choice(kConvChoices, params.shape) == Variant::kDsp) {
    dsp::conv2d_rows_no_fallback(params, input, input_ring, filter, bias, output, output_ring,
                                 y_begin, y_end, scratch);
    return;
  }
#endif
#if defined(MOTE_KERNELS_WITH_MVE)
  mve::conv2d_rows_no_fallback(params, input, input_ring, filter, bias, output, output_ring,
                               y_begin, y_end, scratch);
#elif defined(MOTE_KERNELS_WITH_DSP)
  dsp::conv2d_rows_no_fallback(params, input, input_ring, filter, bias, output, output_ring,
                               y_begin, y_end, scratch);
#else
  portable_conv2d_rows(params, input, input_ring, filter, bias, output, output_ring, y_begin, y_end,
                       scratch);
#endif
}

bool conv_runs_backward(const ConvShape& s) {
  return s.batches > 0 && s.input_h > 0 && s.input_w > 0 && s.input_c > 0 && s.output_c > 0 &&
         s.filter_h == 1 && s.filter_w == 1 && s.filter_c == s.input_c && s.stride_h == 1 &&
         s.stride_w == 1 && s.pad_h == 0 && s.pad_w == 0 && s.output_h == s.input_h &&
         s.output_w == s.input_w;
}

// The big chunks hold at most a row and a pixel: what a 3x3 depthwise convolution of stride 1
// before it moves its output down (its forward lead, (W + 1) * C), so that the pair keeps its
// place where the output is no larger than the input. A multiple of four pixels, so that the
// variants' blocks of two (portable, dsp) and four (mve) pixels never leave a pixel alone inside
// a chunk.
// An output larger than its input grows away from it: chunk p of n pixels needs
// (p + n) * ci - p * co bytes of room, so after the first small chunks (room 2 * ci, the lead) a
// big chunk fits from p = (block - 2) * ci / (co - ci) on. Those few small chunks cost a few calls;
// the lead they save is most of a row (visual wake words' 8 -> 16 channels: 16 bytes, not 384).
BackwardChunks conv_backward_chunks(const ConvShape& s) {
  const int32_t row_and_pixel = (s.output_w + 1) & ~3;
  const int32_t block = row_and_pixel > 4 ? row_and_pixel : 4;
  if (s.output_c <= s.input_c) return {block, 0};
  const int64_t pixels = int64_t{s.batches} * s.output_h * s.output_w;
  const int64_t room = int64_t{block - kBackwardFirstChunk} * s.input_c;
  const int64_t grow = s.output_c - s.input_c;
  int64_t split = (room + grow - 1) / grow;
  split = (split + kBackwardFirstChunk - 1) / kBackwardFirstChunk * kBackwardFirstChunk;
  if (split > pixels) split = (pixels + kBackwardFirstChunk - 1) / kBackwardFirstChunk * kBackwardFirstChunk;
  return {block, static_cast<int32_t>(split)};
}

void conv2d_backward(const ConvParams& params, const int8_t* input, const int8_t* filter,
                     const int32_t* bias, int8_t* output, Scratch scratch) {
  const ConvShape s = params.shape;  // a local copy: output stores (int8) could alias params
  if (!conv_runs_backward(s)) return;
  // Batches flattened: stride 1 and no padding make the pixels of all images one row.
  ConvParams p = params;
  p.shape.batches = 1;
  p.shape.input_h = p.shape.output_h = 1;
  p.shape.input_w = p.shape.output_w = s.batches * s.output_h * s.output_w;
  const BackwardChunks chunks = conv_backward_chunks(s);
  p.backward_chunk = chunks.block;
  p.backward_split = chunks.split;
  // Every extension takes a pointwise convolution that is not grouped.
  conv2d_extension(p, input, filter, bias, output, scratch);
}

namespace {

// The 16x8 and int4 forms: their variants need no scratch.
size_t no_scratch(const ConvShape&) { return 0; }

// Not grouped (wide_conv.h: no im2col, so no scratch either).
constexpr ConvVariant kConvWideVariants[] = {
    {Variant::kMve, &wide_conv::handles, &no_scratch, MOTE_MVE_BUILT, nullptr},
    {Variant::kDsp, &wide_conv::handles, &no_scratch, MOTE_DSP_BUILT, nullptr},
    {Variant::kPortable, nullptr, &no_scratch, true, nullptr},
};
constexpr auto kConvWideChoices = internal::choices_of(kConvWideVariants);
using Conv16x8With64 = void (*)(const ConvParams&, const int16_t*, const int8_t*, const int64_t*,
                                int16_t*);
using Conv16x8With32 = void (*)(const ConvParams&, const int16_t*, const int8_t*, const int32_t*,
                                int16_t*);
using ConvInt4 = void (*)(const ConvParams&, const int8_t*, const uint8_t*, const int32_t*,
                          int8_t*);
constexpr Conv16x8With64 kConv16x8With64Kernels[] = {
    MOTE_MVE_KERNEL(mve::conv2d_16x8), MOTE_DSP_KERNEL(dsp::conv2d_16x8), &portable_conv2d_16x8};
constexpr Conv16x8With32 kConv16x8With32Kernels[] = {
    MOTE_MVE_KERNEL(mve::conv2d_16x8), MOTE_DSP_KERNEL(dsp::conv2d_16x8), &portable_conv2d_16x8};
constexpr ConvInt4 kConvInt4Kernels[] = {MOTE_MVE_KERNEL(mve::conv2d_int4),
                                         MOTE_DSP_KERNEL(dsp::conv2d_int4), &portable_conv2d_int4};
static_assert(internal::kernels_match(kConvWideVariants, kConv16x8With64Kernels));
static_assert(internal::kernels_match(kConvWideVariants, kConv16x8With32Kernels));
static_assert(internal::kernels_match(kConvWideVariants, kConvInt4Kernels));

}  // namespace

MOTE_KERNEL_VARIANT_NAMES(conv_16x8, const ConvShape&, kConvWideVariants)
MOTE_KERNEL_VARIANT_NAMES(conv_int4, const ConvShape&, kConvWideVariants)

void conv2d_16x8(const ConvParams& params, const int16_t* input, const int8_t* filter,
                 const int64_t* bias, int16_t* output) {
  internal::built_kernel(kConvWideChoices, kConv16x8With64Kernels, params.shape)(
      params, input, filter, bias, output);
}

void conv2d_16x8(const ConvParams& params, const int16_t* input, const int8_t* filter,
                 const int32_t* bias, int16_t* output) {
  internal::built_kernel(kConvWideChoices, kConv16x8With32Kernels, params.shape)(
      params, input, filter, bias, output);
}

void conv2d_int4(const ConvParams& params, const int8_t* input, const uint8_t* filter,
                 const int32_t* bias, int8_t* output) {
  internal::built_kernel(kConvWideChoices, kConvInt4Kernels, params.shape)(params, input, filter,
                                                                          bias, output);
}

}  // namespace kernels
}  // namespace mote
