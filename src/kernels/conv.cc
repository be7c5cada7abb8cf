// CONV_2D's kernel variants: which one runs, what it needs, and the conv2d entry that calls it.
// A variant folder adds one line above the portable kernel: handles, scratch size, kernel and
// overlap rule (null: its output never overlaps an input).
#include "mote/kernels/conv.h"

#include "variant_table.h"

#include "dsp/kernels.h"
#include "mve/kernels.h"
#if defined(MOTE_KERNELS_WITH_TESTING)
#include "testing/conv.h"
#endif

namespace mote {
namespace kernels {
namespace {

using ConvKernel = void (*)(const ConvParams&, const int8_t*, const int8_t*, const int32_t*,
                            int8_t*, Scratch);
using ConvVariant = internal::KernelVariant<ConvShape, ConvKernel>;

constexpr ConvVariant kConvVariants[] = {
#if defined(MOTE_KERNELS_WITH_TESTING)
    // Only in a test library (its size function too): no extension ever plans for it.
    {Variant::kTesting, nullptr, &testing_variant::conv_scratch_bytes, &testing_variant::conv2d,
     nullptr},
#endif
    {Variant::kMve, &mve::conv_handles, &mve::conv_scratch_bytes, MOTE_MVE_KERNEL(mve::conv2d),
     &mve::conv_overlap},
    {Variant::kDsp, &dsp::conv_handles, &dsp::conv_scratch_bytes, MOTE_DSP_KERNEL(dsp::conv2d),
     &dsp::conv_overlap},
    {Variant::kPortable, nullptr, &portable_conv_scratch_bytes, &portable_conv2d,
     &internal::portable_conv_overlap},
};

}  // namespace

MOTE_KERNEL_VARIANT_QUERIES(conv, const ConvShape&, kConvVariants)
MOTE_KERNEL_OVERLAP_QUERIES(conv, const ConvShape&, kConvVariants)

void conv2d(const ConvParams& params, const int8_t* input, const int8_t* filter, const int32_t* bias,
            int8_t* output, Scratch scratch) {
  internal::built_variant(kConvVariants, params.shape)
      .kernel(params, input, filter, bias, output, scratch);
}

}  // namespace kernels
}  // namespace mote
